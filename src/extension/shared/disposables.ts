/** The base of every extension-side object that owns VS Code resources (listeners, emitters, decoration types, panels). */
import type * as vscode from 'vscode';

export abstract class DisposableOwner implements vscode.Disposable {
  readonly #owned: vscode.Disposable[] = [];
  #disposed = false;

  /** Takes ownership of `items` (disposed with this object, last registered first); returns the first. */
  protected own<T extends vscode.Disposable>(first: T, ...rest: vscode.Disposable[]): T {
    if (this.#disposed) {
      for (const d of [first, ...rest]) d.dispose();
    } else {
      this.#owned.push(first, ...rest);
    }
    return first;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Disposes what it owns once; subclasses that override call `super.dispose()`. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const d of this.#owned.splice(0).reverse()) d.dispose();
  }
}
