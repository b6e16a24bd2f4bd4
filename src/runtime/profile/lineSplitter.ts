/** The lines of the bootstrap's progress channel, however its chunks fall (the runner reads it). */
/** Splits a byte stream into lines however the chunks fall; a line longer than `maxLine` is dropped. */
export class LineSplitter {
  private pending = '';
  private readonly decoder = new TextDecoder();
  private skipping = false;

  constructor(private readonly maxLine = 1 << 20) {}

  /** The complete lines in this chunk (without their newline). */
  push(chunk: Uint8Array): string[] {
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    const lines: string[] = [];
    for (const part of parts) {
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      lines.push(part.endsWith('\r') ? part.slice(0, -1) : part);
    }
    if (this.pending.length > this.maxLine) {
      this.pending = '';
      this.skipping = true;
    }
    return lines;
  }
}
