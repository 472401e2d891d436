import { describe, expect, it } from 'vitest';
import { MAX_LISTING_BYTES, parseMultistatus } from '../../lib/sync/webdav-listing';

// Written after RFC 4918's examples in the shapes servers vary in: another prefix, a default namespace, full URLs as
// hrefs, escaped names, a second propstat with 404 for properties a server does not have.
const OTHER_PREFIX = `<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">
 <d:response><d:href>/remote.php/dav/files/jo/Backstory/</d:href>
  <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
  <d:propstat><d:prop><d:getcontentlength/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
 </d:response>
 <d:response><d:href>/remote.php/dav/files/jo/Backstory/backstory-vault-abc%20%281%29.json</d:href>
  <d:propstat><d:prop><d:resourcetype/><d:getcontentlength>512</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
 </d:response>
 <d:response><d:href>https://cloud.example/remote.php/dav/files/jo/Backstory/backstory/</d:href>
  <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
 </d:response>
</d:multistatus>`;

const DEFAULT_NS = `<multistatus xmlns="DAV:"><response><href>a%26b.bin</href><propstat><prop>
<resourcetype></resourcetype><getcontentlength>7</getcontentlength></prop><status>HTTP/1.1 200 OK</status></propstat></response>
<response><href>/x/lp.bin</href><propstat><prop><getcontentlength>-5</getcontentlength></prop></propstat></response></multistatus>`;

describe('reading a WebDAV listing', () => {
  it('reads entries whatever the prefix, href form or escaping', () => {
    const base = 'https://cloud.example/remote.php/dav/files/jo/Backstory/';
    expect(parseMultistatus(OTHER_PREFIX, base)).toEqual([
      { path: '/remote.php/dav/files/jo/Backstory/', folder: true, size: 0 },
      { path: '/remote.php/dav/files/jo/Backstory/backstory-vault-abc (1).json', folder: false, size: 512 },
      { path: '/remote.php/dav/files/jo/Backstory/backstory/', folder: true, size: 0 },
    ]);
    expect(parseMultistatus(DEFAULT_NS, 'https://h.example/x/')).toEqual([
      { path: '/x/a&b.bin', folder: false, size: 7 },
      { path: '/x/lp.bin', folder: false, size: 0 },
    ]);
  });

  it("keeps each file's ETag as its stamp, else its modified time; an overlong or odd one is not kept", () => {
    const entry = (prop: string) => `<d:response><d:href>/f/${Math.random().toString(36).slice(2)}.bin</d:href><d:propstat><d:prop><d:resourcetype/><d:getcontentlength>9</d:getcontentlength>${prop}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
    const xml = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">${[
      '<d:getetag>"5f2b1c3d9"</d:getetag><d:getlastmodified>Mon, 07 Dec 2026 09:00:00 GMT</d:getlastmodified>',
      '<d:getlastmodified> Mon, 07 Dec 2026 09:00:01 GMT </d:getlastmodified>',
      `<d:getetag>"${'e'.repeat(5000)}"</d:getetag>`,
      '<d:getetag><d:x>nested</d:x></d:getetag>',
      '',
    ].map(entry).join('')}</d:multistatus>`;
    expect(parseMultistatus(xml, 'https://h.example/f/').map((e) => e.stamp)).toEqual([
      '"5f2b1c3d9"', 'Mon, 07 Dec 2026 09:00:01 GMT', undefined, undefined, undefined,
    ]);
  });

  it('does not expand entities a hostile server declares (a billion laughs)', () => {
    let entities = '<!ENTITY a0 "xxxxxxxxxx">';
    for (let i = 1; i < 10; i++) entities += `<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`;
    const xml = `<?xml version="1.0"?><!DOCTYPE m [${entities}]><multistatus xmlns="DAV:"><response><href>/&a9;</href></response></multistatus>`;
    const entries = parseMultistatus(xml, 'https://h.example/');
    expect(entries.every((e) => e.path.length < 100)).toBe(true);
  });

  it('refuses what is not a listing, and a listing too large to read', () => {
    expect(() => parseMultistatus('<html><body>Login</body></html>', 'https://h.example/')).toThrow(/something else/);
    expect(() => parseMultistatus(' '.repeat(MAX_LISTING_BYTES + 1), 'https://h.example/')).toThrow(/more than Backstory reads/);
  });
});
