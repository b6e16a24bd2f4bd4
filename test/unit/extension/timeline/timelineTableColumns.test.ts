/** The timeline's lines table takes its figure columns from the per-line figure registry. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LINE_FIGURES } from '../../../../src/engine/analysis/lineFigures';
import { TIMELINE_PAGE } from '../../../../src/extension/timeline/html';
import { TABLE_COLUMNS } from '../../../../webview/timeline/state/tableColumns';

describe('the timeline lines table columns', () => {
  it('are figures of the registry, explained in its words', () => {
    for (const column of TABLE_COLUMNS) {
      const spec = LINE_FIGURES.find((f) => f.key === column.key);
      assert.ok(spec, `${column.key} is a registered line figure`);
      assert.equal(column.title, `${spec.label}: ${spec.description}`);
      assert.equal(column.unit, spec.unit);
    }
    assert.deepEqual(
      TABLE_COLUMNS.map((c) => c.key),
      ['liveAtPeakBytes', 'inclusiveLiveAtPeakBytes', 'allocBytes'],
    );
  });

  it('have headers of at most 7 characters (whole in a 300 px side bar) and distinct', () => {
    const headers = TABLE_COLUMNS.map((c) => c.header);
    assert.equal(new Set(headers).size, headers.length);
    for (const h of headers) assert.ok(h.length > 0 && h.length <= 7, h);
  });

  it('are not written into the page: only the Line column is static', () => {
    const body = TIMELINE_PAGE.body ?? '';
    const head = body.slice(body.indexOf('<thead>'), body.indexOf('</thead>'));
    assert.equal(head.match(/<th /g)?.length, 1, head);
    assert.ok(head.includes('data-sort="line"'));
  });
});
