// The one allow-list for values roster did not write itself (a server's school ids, the config file's
// profile names) before a completion script offers them. A shell re-reads what completion inserts (bash's
// `compgen -W` even expands its word list at TAB time), so only characters that mean nothing to bash, zsh,
// fish or PowerShell pass: letters, digits, ".", "_", "-" and ":", starting with a letter or digit, as the
// OneRoster ids met in the field are (GUIDs, `org-sch-1`, `ORG_1`). Anything else is still usable by typing
// it; completion just does not offer it.
const OFFERABLE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isOfferable = (word: string): boolean => OFFERABLE.test(word);
