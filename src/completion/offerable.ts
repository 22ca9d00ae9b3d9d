// The one allow-list for values roster did not write itself (a server's school ids, the config file's
// profile names) before a completion script offers them: a plausible id (values.ts), whose characters mean
// nothing to bash, zsh, fish or PowerShell (bash's `compgen -W` even expands its word list at TAB time).
// Anything else is still usable by typing it; completion just does not offer it.
import { isPlausibleId } from '../values.js';

export const isOfferable = (word: string): boolean => isPlausibleId(word);
