/** Function ranges of Python files for code lenses, without a language server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPythonFunctions } from '../../../../src/engine/annotate/pythonFunctions';

const source = `import torch

class Model(torch.nn.Module):
    """A model.

def not_a_function():
    """

    @torch.no_grad()
    def forward(
        self,
x,  # badly indented continuation
    ):
        h = self.a(x)

        # a comment at the body's indentation

        return h

    async def stream(self):
        def inner():
            return 1
        return inner()
# trailing comment

def main():
    m = Model()
    y = m(torch.zeros(3, \\
  4))
`;

describe('findPythonFunctions', () => {
  const found = findPythonFunctions(source.split('\n'));

  it('finds defs (async and nested too) with their qualified names, not text inside strings', () => {
    assert.deepEqual(
      found.map((f) => f.qualifiedName),
      ['Model.forward', 'Model.stream', 'Model.stream.inner', 'main'],
    );
  });

  it('spans each body from the def to its last line of code', () => {
    const range = (name: string) => {
      const f = found.find((x) => x.qualifiedName === name)!;
      return [f.line + 1, f.endLine + 1];
    };
    assert.deepEqual(range('Model.forward'), [10, 18], 'a signature over lines does not end it; comments after do not extend it');
    assert.deepEqual(range('Model.stream'), [20, 23]);
    assert.deepEqual(range('Model.stream.inner'), [21, 22]);
    assert.deepEqual(range('main'), [26, 29], 'a backslash continuation belongs to the body');
  });

  it('handles an empty file and a one-line def', () => {
    assert.deepEqual(findPythonFunctions([]), []);
    assert.deepEqual(findPythonFunctions(['def f(): return 1']), [{ name: 'f', qualifiedName: 'f', line: 0, endLine: 0 }]);
  });
});
