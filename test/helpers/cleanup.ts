// vitest setup file (every test file): after the file's last test and its own afterAll hooks, remove the
// temporary folders it made with tempDir, so a run leaves nothing in the temp folder.
import { afterAll } from 'vitest';
import { removeTempDirs } from './context.js';

afterAll(() => {
  const left = removeTempDirs();
  if (left.length > 0) console.warn(`could not remove ${left.length} temporary folders: ${left.join(', ')}`);
});
