// Questions asked on a terminal (stderr, so stdout stays data). @inquirer/prompts loads only here.
// Every question can be left with Ctrl-C or Esc: it then fails with a CancelledError (exit 130) whose
// message says what was not done, never with the prompt library's own error (a crash to the user).
import { CancelledError, type Undone } from './errors.js';

export interface Prompter {
  input(
    message: string,
    options?: { default?: string; validate?: (value: string) => string | true },
  ): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  /** A list filtered as the user types; `choices` is asked again for every change of the typed text. */
  search<T>(message: string, choices: (typed: string) => readonly SearchChoice<T>[]): Promise<T>;
}

export interface SearchChoice<T> {
  name: string;
  value: T;
}

/** The errors @inquirer/core rejects with when a prompt is left: Ctrl-C, its signal aborted, cancel(). */
const LEFT = new Set(['ExitPromptError', 'AbortPromptError', 'CancelPromptError']);

/** `undone`: what a cancel at any of these questions leaves undone ("nothing was sent"). */
export async function createInquirerPrompter(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  undone: Undone,
): Promise<Prompter> {
  const prompts = await import('@inquirer/prompts');
  type Context = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; signal: AbortSignal };
  /**
   * Asks one question. The prompts do not all take Esc as a way out, so a lone Esc (readline's `escape`
   * key, told from the start of an arrow key's sequence by its timeout) aborts the prompt through its
   * signal, as Ctrl-C already leaves it.
   */
  const ask = async <T>(prompt: (context: Context & { clearPromptOnDone: false }) => Promise<T>) => {
    const esc = new AbortController();
    const onKey = (_: unknown, key?: { name?: string }) => {
      if (key?.name === 'escape') esc.abort();
    };
    // The prompt makes its readline interface, which emits the keypresses, as it is called.
    const answer = prompt({ input, output, clearPromptOnDone: false, signal: esc.signal });
    input.on('keypress', onKey);
    try {
      return await answer;
    } catch (error) {
      if (error instanceof Error && LEFT.has(error.name)) throw new CancelledError(undone);
      throw error;
    } finally {
      input.removeListener('keypress', onKey);
    }
  };
  return {
    input: (message, options = {}) =>
      ask((context) =>
        prompts.input(
          { message, default: options.default, required: true, validate: options.validate },
          context,
        ),
      ),
    password: (message) =>
      ask((context) =>
        prompts.password({ message, mask: true, validate: (v) => v.length > 0 || 'Required' }, context),
      ),
    confirm: (message, defaultValue = false) =>
      ask((context) => prompts.confirm({ message, default: defaultValue }, context)),
    search: (message, choices) =>
      ask((context) =>
        prompts.search({ message, pageSize: 10, source: (typed) => choices(typed ?? '') }, context),
      ),
  };
}

/**
 * A yes/no question whose default is no, and whose "no" is a cancel as Ctrl-C or Esc is: a CancelledError
 * (exit 130) saying what was left undone.
 */
export async function consent(
  ctx: { prompter(undone: Undone): Promise<Prompter> },
  question: string,
  undone: Undone,
): Promise<void> {
  if (!(await (await ctx.prompter(undone)).confirm(question, false))) throw new CancelledError(undone);
}
