// Text a server wrote, quoted in one of roster's messages (an error's description, a key, a Location).

/** One line, no control characters, bounded: server text goes straight to the user's terminal. */
export function serverText(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
