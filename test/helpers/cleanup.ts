// vitest setup file (every test file): after the file's last test and its own afterAll hooks, remove the
// temporary folders it made with tempDir, so a run leaves nothing in the temp folder. With
// ROSTER_TEST_HANDLES=1, also name what the file left open (servers, sockets, child processes, timers).
import { afterAll, expect } from 'vitest';
import { removeTempDirs } from './temp.js';

const openAtStart = new Set(process.getActiveResourcesInfo());

afterAll(async () => {
  const left = removeTempDirs();
  if (left.length > 0) console.warn(`could not remove ${left.length} temporary folders: ${left.join(', ')}`);
  if (process.env.ROSTER_TEST_HANDLES) await reportOpenHandles();
});

async function reportOpenHandles(): Promise<void> {
  const opened = () => process.getActiveResourcesInfo().filter((name) => !openAtStart.has(name));
  // A close already under way is not a leak: up to 300 ms for it to end, looked at every 10 ms.
  for (const until = Date.now() + 300; opened().length > 0 && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const open = opened();
  if (open.length === 0) return;
  // Node's undocumented handle list names a child process by its command line.
  const handles = (process as unknown as { _getActiveHandles(): { spawnargs?: string[] }[] })
    ._getActiveHandles()
    .map((handle) => handle.spawnargs?.join(' ') ?? handle.constructor.name);
  console.warn(`open after ${expect.getState().testPath}: ${open.join(', ')} (${handles.join(' | ')})`);
}
