/**
 * Raw 8-bit header text in a legacy charset. Old clients wrote Subject and From in the message's own charset
 * (GB2312, Shift_JIS, windows-1251…) instead of RFC 2047 words; read as UTF-8 they become U+FFFD. Each header line
 * that is not valid UTF-8 is read in the charset the message declares and handed on as UTF-8; so is a line in
 * ISO-2022-JP, which is 7-bit but meaningless as ASCII.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');
const encoder = new TextEncoder();

const CHARSET = /^content-type:[^\n]*?charset\s*=\s*"?([\w.:-]+)/im;

function headerEnd(raw: Uint8Array): number {
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0x0a) continue;
    if (raw[i + 1] === 0x0a) return i + 1;
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) return i + 1;
  }
  return raw.length;
}

/** The charset the message declares: its own Content-Type's, else the first one a part names (multipart mail). */
function declaredCharset(raw: Uint8Array, end: number): string | undefined {
  const head = latin1.decode(raw.subarray(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const own = CHARSET.exec(head);
  if (own) return own[1];
  // Where the parts begin is not known without parsing; the first 64 KB after the header hold the first parts.
  const body = latin1.decode(raw.subarray(end, end + 65536)).replace(/\r?\n[ \t]+/g, ' ');
  return CHARSET.exec(body)?.[1];
}

function decoder(charset: string | undefined): TextDecoder | undefined {
  // Undeclared 8-bit text is what mail clients have always read as windows-1252 (Latin-1 and its extras).
  if (!charset) return new TextDecoder('windows-1252');
  const label = charset.toLowerCase() === 'ks_c_5601-1987' ? 'euc-kr' : charset;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

const CONTENT_TYPE = /^content-type\s*:/im;

/** A non-MIME message whose body is 8-bit but not UTF-8, with a Content-Type saying windows-1252 put first. */
function undeclaredBody(raw: Uint8Array, end: number): Uint8Array | undefined {
  if (CONTENT_TYPE.test(latin1.decode(raw.subarray(0, end)))) return undefined;
  const body = raw.subarray(end);
  if (!body.some((b) => b >= 0x80) || isUtf8(body)) return undefined;
  const label = encoder.encode('Content-Type: text/plain; charset=windows-1252\r\n');
  const out = new Uint8Array(label.length + raw.length);
  out.set(label);
  out.set(raw, label.length);
  return out;
}

const isUtf8 = (bytes: Uint8Array) => {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};
const ISO_2022_JP = /\x1b\$[@B]/;

/**
 * The message with its header lines in UTF-8, or the same bytes when nothing needed it. A message that is not MIME
 * (no Content-Type) with 8-bit text that is not UTF-8 is also labelled windows-1252, so its body is not read as UTF-8
 * into U+FFFD.
 */
export function headersAsUtf8(raw: Uint8Array): Uint8Array {
  const end = headerEnd(raw);
  const labelled = undeclaredBody(raw, end);
  if (labelled) return headersAsUtf8(labelled);
  const head = raw.subarray(0, end);
  let eight = false;
  let esc = false;
  for (const b of head) {
    if (b >= 0x80) eight = true;
    else if (b === 0x1b) esc = true;
  }
  if (!eight && !esc) return raw;
  let declared: TextDecoder | undefined | null = null;
  const lines: Uint8Array[] = [];
  let changed = false;
  let start = 0;
  for (let i = 0; i <= head.length; i++) {
    if (i < head.length && head[i] !== 0x0a) continue;
    const line = head.subarray(start, Math.min(i + 1, head.length));
    start = i + 1;
    let text: string | undefined;
    if (ISO_2022_JP.test(latin1.decode(line))) text = new TextDecoder('iso-2022-jp').decode(line);
    else if (!isUtf8(line)) {
      if (declared === null) declared = decoder(declaredCharset(raw, end));
      if (declared) text = declared.decode(line);
    }
    if (text === undefined) lines.push(line);
    else {
      lines.push(encoder.encode(text));
      changed = true;
    }
  }
  if (!changed) return raw;
  const body = raw.subarray(end);
  const total = lines.reduce((n, l) => n + l.length, 0) + body.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const l of lines) {
    out.set(l, at);
    at += l.length;
  }
  out.set(body, at);
  return out;
}
