/** Every command id the extension contributes, in one place (package.json must match). */
export const Commands = {
  openSnapshot: 'vramLens.openSnapshot',
  switchSnapshot: 'vramLens.switchSnapshot',
  clearAnnotations: 'vramLens.clearAnnotations',
  closeSnapshot: 'vramLens.closeSnapshot',
  showSummary: 'vramLens.showSummary',
  showLineInTimeline: 'vramLens.showLineInTimeline',
  /** Opens the local file of a recorded frame at its line (hover and summary links). */
  openFrame: 'vramLens.openFrame',
  /** Forgets remembered "recorded folder -> local folder" path mappings. */
  forgetPathMappings: 'vramLens.forgetPathMappings',
  openTimeline: 'vramLens.openTimeline',
  profile: 'vramLens.profile',
  openSample: 'vramLens.openSample',
  runWorkload: 'vramLens.runWorkload',
  profileOnnx: 'vramLens.profileOnnx',
  compareSnapshots: 'vramLens.compareSnapshots',
  exitCompareMode: 'vramLens.exitCompareMode',
  showComparison: 'vramLens.showComparison',
  showAdvice: 'vramLens.showAdvice',
  /** The caching allocator replayed with other settings or GPU sizes (the what-if panel). */
  whatIf: 'vramLens.whatIf',
  cancelProfile: 'vramLens.cancelProfile',
  showProfileOutput: 'vramLens.showProfileOutput',
  loadRun: 'vramLens.runs.load',
  revealRunSnapshot: 'vramLens.runs.revealSnapshot',
  runAgain: 'vramLens.runs.runAgain',
  deleteRun: 'vramLens.runs.delete',
  /** Puts the cell that loads `%%vram` into the active notebook or on the clipboard. */
  recordInKernel: 'vramLens.recordInKernel',
} as const;
