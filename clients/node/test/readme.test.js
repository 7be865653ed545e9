// The README shows the example files as they are: each block after an <!-- examples/... --> marker is that file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const blocks = [...readme.matchAll(/<!-- (examples\/[\w.-]+) -->\n```js\n([\s\S]*?)```/g)];

test('the README shows the receiver, the Express receiver, the signer and the upload', () => {
  assert.deepEqual(blocks.map((b) => b[1]), ['examples/receiver.mjs', 'examples/express-receiver.mjs', 'examples/signer.mjs', 'examples/upload.mjs']);
});

for (const [, file, code] of blocks) {
  test(`${file} in the README is the file itself, under 30 lines`, () => {
    assert.equal(code, readFileSync(new URL(file, root), 'utf8'));
    assert.ok(code.trimEnd().split('\n').length < 30, `${file} has ${code.split('\n').length} lines`);
  });
}
