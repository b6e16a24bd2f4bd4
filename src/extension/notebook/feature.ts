/**
 * The notebook feature: recordings from the user's own Jupyter kernel (notebookRecordings.ts). The
 * cells as sources of recorded lines are a shared service, the path resolver's `notebooks`
 * (src/extension/shared/notebookCells.ts).
 */
import type { Services } from '../shared/services';
import { NotebookRecordings } from './notebookRecordings';

export function notebookFeature(services: Services): void {
  services.context.subscriptions.push(new NotebookRecordings(services, services.resolver.notebooks));
}
