/** Allocator settings: PYTORCH_CUDA_ALLOC_CONF as PyTorch lexes it, and what snapshots record. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AllocConfError, DEFAULT_SETTINGS, applyAllocConf, describeSettings, recordedSettings } from '../../../../src/engine/allocator/settings';
import { MiB } from '../../../../src/engine/allocator/sizes';

describe('allocator settings', () => {
  it('applies options over a base and leaves the rest', () => {
    const s = applyAllocConf(DEFAULT_SETTINGS, ' expandable_segments:True , max_split_size_mb:128,garbage_collection_threshold:0.6');
    assert.equal(s.expandableSegments, true);
    assert.equal(s.maxSplitSize, 128 * MiB);
    assert.equal(s.garbageCollectionThreshold, 0.6);
    assert.equal(s.maxNonSplitRoundingSize, 20 * MiB);
    assert.equal(describeSettings(s), 'expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.6');
    assert.equal(describeSettings(DEFAULT_SETTINGS), '');
  });

  it('reads roundup_power2_divisions lists: the first value fills below it, > fills above the last', () => {
    const s = applyAllocConf(DEFAULT_SETTINGS, 'roundup_power2_divisions:[256:1,512:2,1024:4,>:8]');
    assert.deepEqual(s.roundupPower2Divisions, [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 8, 8, 8, 8]);
    assert.deepEqual(applyAllocConf(DEFAULT_SETTINGS, 'roundup_power2_divisions:4').roundupPower2Divisions, new Array(16).fill(4));
  });

  it('refuses what PyTorch refuses', () => {
    for (const bad of ['max_split_size_mb:10', 'expandable_segments:yes', 'roundup_power2_divisions:3', 'no_such_option:1', 'max_split_size_mb', 'garbage_collection_threshold:1.5']) {
      assert.throws(() => applyAllocConf(DEFAULT_SETTINGS, bad), AllocConfError, bad);
    }
    assert.doesNotThrow(() => applyAllocConf(DEFAULT_SETTINGS, 'pinned_use_cuda_host_register:True,release_lock_on_cudamalloc:True'));
  });

  it('reads a snapshot allocator_settings dict: -1 is no max_split_size, divisions by MiB interval', () => {
    const raw = {
      PYTORCH_CUDA_ALLOC_CONF: 'max_non_split_rounding_mb:40',
      max_split_size: 268435456,
      garbage_collection_threshold: 0.0,
      expandable_segments: false,
      roundup_power2_divisions: { '1': 0, '2': 0, '4': 4, '8': 0, '16': 0, '32': 0, '64': 0, '128': 0, '256': 0, '512': 0, '1024': 0, '2048': 0, '4096': 0, '8192': 0, '16384': 0, '32768': 2 },
    };
    const s = recordedSettings(raw, false);
    assert.equal(s.maxSplitSize, 256 * MiB);
    assert.equal(s.maxNonSplitRoundingSize, 40 * MiB, 'only the configuration string carries it');
    assert.equal(s.roundupPower2Divisions[2], 4);
    assert.equal(s.roundupPower2Divisions[15], 2);
    assert.equal(recordedSettings({ ...raw, max_split_size: -1 }, false).maxSplitSize, Infinity);
    assert.equal(recordedSettings(undefined, true).expandableSegments, true, 'older snapshots: expandable segments seen in segments');
  });
});
