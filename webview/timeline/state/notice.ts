/** The page's notices (PageData's `notice`): what the status line says first, when a view asked for is not shown. */

/** Show: Allocator cannot be shown: why, and what is shown instead. */
export function allocatorNotice(why: string): string {
  return `Allocator view not available: ${why}. Showing the blocks`;
}
