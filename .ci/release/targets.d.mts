export const NODE_VERSION: string;
export const TARGETS: Record<string, { node: string; keyring: string; exe: string; strip?: string[] }>;
