// `npm run test:models`: real public ONNX models (PaddleOCR, Silero VAD, openWakeWord) through `vram-lens run
// MODEL.onnx`, from the cache scripts/setup-models.mjs fills (.models/, or VRAM_LENS_MODELS). Ends with a line
// saying whether they ran: a run without the cache skips them, and must not look like a full pass.
import { runTestsReportingSkips } from './testsReportingSkips.mjs';

runTestsReportingSkips(['out/test/models/'], 'models not found at ', {
  skipped: (_count, reason) => `The public models did not run: ${reason}`,
  allRan: 'All public-model tests ran (.models/ or VRAM_LENS_MODELS).',
});
