/** Entry of the timeline webview bundle (dist/webview/timeline.js). */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { TimelineToHost } from '../../src/protocol/timeline';
import { TimelineApp } from './app';
import type { ViewState } from './state/state';
import { installTestHooks } from './testHooks';
import { connectHost } from '../shared/host';

const app = new TimelineApp(connectHost<TimelineToHost, ViewState>());
installTestHooks(app);
