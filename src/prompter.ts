// Questions asked on a terminal (stderr, so stdout stays data). @inquirer/prompts loads only here.
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

export async function createInquirerPrompter(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<Prompter> {
  const prompts = await import('@inquirer/prompts');
  const context = { input, output, clearPromptOnDone: false };
  return {
    input: (message, options = {}) =>
      prompts.input(
        { message, default: options.default, required: true, validate: options.validate },
        context,
      ),
    password: (message) =>
      prompts.password({ message, mask: true, validate: (v) => v.length > 0 || 'Required' }, context),
    confirm: (message, defaultValue = false) => prompts.confirm({ message, default: defaultValue }, context),
    search: (message, choices) =>
      prompts.search({ message, pageSize: 10, source: (typed) => choices(typed ?? '') }, context),
  };
}
