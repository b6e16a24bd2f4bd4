/** The one way to turn anything thrown into words for a message or a log. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
