import type { CanaryText, MirrorText } from '../language.js';
import { invertRspecCheck, mutateRspecCheck, placeRspecBlocks, rspecAnchors, rspecExample } from './rspec-mirrors.js';

/**
 * RSpec canaries: `it` examples beside the file's listed examples, in their groups (after them, so
 * they run first in RSpec's defined order), checked with RSpec's own `eq` as the file's examples
 * are (with a plain `raise` in a file that never calls `expect`). The harness names an example by its description alone; the file ran when one of its listed
 * examples reported.
 */
export const RSPEC_CANARY_TEXT: CanaryText = {
  testNamePattern: /^\s*it ['"]([^'"\n]+)['"]/gm,
  nameWords: (description) => description.split(/\s+/),
  wordShape: /^[a-z]{3,}$/,
  canaryName: (words, attempt) => (attempt >= 50 ? `${words.join(' ')} ${attempt}` : words.join(' ')),
  spelled: (name) => name,
  reported: (name) => name,
  // Checked as the file's examples check (RSpec's `expect` syntax may be turned off): `where` says which.
  canaryBody: (name, where, values, expected) =>
    [
      `  it '${name}' do`,
      `    values = [${values.join(', ')}]`,
      where === 'expect'
        ? `    expect(values.sum).to eq(${expected})`
        : `    raise "sum #{values.sum}, want ${expected}" unless values.sum == ${expected}`,
      '  end',
    ].join('\n'),
  closing: '  end',
  // The listed examples a canary can go beside: none, and the file takes no canaries.
  fileSiblings: (content, listed) => rspecAnchors(content, listed),
  suiteOf: () => '',
  where: (content) => (/^\s*expect[({]/m.test(content) ? 'expect' : 'raise'),
  place: placeRspecBlocks,
};

export const RSPEC_MIRRORS: MirrorText = {
  listedShape: /^[^'"#\\]+$/,
  mirrorSource: (content, name) => {
    const example = rspecExample(content, name);
    return example && { body: example.body, param: '', header: example.header };
  },
  mirrorHeader: (name, source) => [source.header!.replace('%NAME%', name)],
  invertCheck: (body, i) => invertRspecCheck(body[i]!),
  mutateCheck: (body, i, _source, random) => mutateRspecCheck(body[i]!, random),
};
