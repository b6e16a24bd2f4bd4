/** Where the "Profile VRAM" code lens goes in a Python file's text (pure, so it is tested without VS Code). */

export type LensPlacement = 'mainGuard' | 'fileTop' | 'off';

const MAIN_GUARD = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:/m;
const USES_TORCH = /^\s*(?:import\s+torch\b|from\s+torch\b)/m;

/** The line of the lens in this text, or undefined for none. */
export function lensLine(text: string, placement: LensPlacement): number | undefined {
  if (placement === 'off' || !USES_TORCH.test(text)) return undefined;
  if (placement === 'fileTop') return 0;
  const match = MAIN_GUARD.exec(text);
  if (!match) return undefined;
  let line = 0;
  for (let i = 0; i < match.index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
