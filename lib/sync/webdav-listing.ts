// Reading a WebDAV PROPFIND answer (RFC 4918 multistatus) into entries. fast-xml-parser rather than DOMParser: the
// service worker has none. Prefixes differ by server (D:, d:, lp1:), so namespaces are dropped; the answer is hostile
// input, so its size is capped and each entry checked.
import { XMLParser } from 'fast-xml-parser';

/** A listing of one folder is a few hundred bytes an entry; this allows tens of thousands. */
export const MAX_LISTING_BYTES = 32 * 1024 * 1024;

export interface DavEntry {
  /** The decoded path on the server, from the href. */
  path: string;
  folder: boolean;
  size: number;
  /** The file's ETag, else its modified time, as the server wrote it (at most MAX_STAMP characters). */
  stamp?: string;
}

/** An ETag or a date is a few dozen characters; a longer one is not kept (the server's answer is hostile input). */
const MAX_STAMP = 200;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: true,
  isArray: (name) => name === 'response' || name === 'propstat',
});

const asArray = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

interface PropStat {
  status?: string;
  prop?: { resourcetype?: { collection?: unknown } | string; getcontentlength?: string; getetag?: unknown; getlastmodified?: unknown };
}

/** The entries of a multistatus body; `base` resolves relative hrefs. Throws on a body that is not one. */
export function parseMultistatus(xml: string, base: string): DavEntry[] {
  if (xml.length > MAX_LISTING_BYTES) throw new Error('The WebDAV server listed more than Backstory reads in one folder.');
  const doc = parser.parse(xml) as { multistatus?: { response?: unknown } };
  if (!doc || typeof doc !== 'object' || !doc.multistatus) throw new Error('The WebDAV server answered a listing with something else.');
  const out: DavEntry[] = [];
  for (const r of asArray(doc.multistatus.response) as { href?: unknown; propstat?: PropStat[] }[]) {
    if (typeof r?.href !== 'string') continue;
    const ok = asArray(r.propstat).find((p) => !p.status || /\s2\d\d\s/.test(` ${p.status} `));
    const prop = ok?.prop ?? {};
    let path: string;
    try {
      path = decodeURIComponent(new URL(r.href.trim(), base).pathname);
    } catch {
      continue;
    }
    const rt = prop.resourcetype;
    const folder = typeof rt === 'object' && rt !== null && 'collection' in rt;
    const size = Number(prop.getcontentlength ?? 0);
    const mark = [prop.getetag, prop.getlastmodified].find((x): x is string => typeof x === 'string' && x.trim() !== '')?.trim();
    const stamp = mark && mark.length <= MAX_STAMP ? mark : undefined;
    out.push({ path, folder, size: Number.isFinite(size) && size >= 0 ? size : 0, ...(stamp ? { stamp } : {}) });
  }
  return out;
}
