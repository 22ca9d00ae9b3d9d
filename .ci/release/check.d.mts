export function formatOf(bytes: Buffer): string;
export function checkExecutable(path: string, target: string): void;
