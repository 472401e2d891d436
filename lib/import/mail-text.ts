/**
 * What a reply says itself: the quoted message below it ("On … wrote:", "> " lines, Outlook's "From: … Sent: …"
 * block, "-----Original Message-----") and the signature (after a "-- " line) left out.
 */
export function replyText(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const t = line.trim();
    // A forwarded mail is what the forward is for: kept whole from its marker on.
    if (FORWARD.test(t)) {
      kept.push(...lines.slice(i));
      break;
    }
    // Signature separator: "-- " (RFC 3676), often trimmed to "--" by mail clients.
    if (line === '-- ' || line === '--') break;
    // Mailman's archive put attachments away: what follows names the stored copy, not the sender's words.
    if (PIPERMAIL_PART.test(t)) break;
    const attribution = attributionLines(lines, i);
    if (attribution) {
      // Quoted with "> " below (bottom-posted replies go on after it): skip the attribution, drop the quote lines.
      // Quoted without marks (HTML mail made text): everything below is the quote.
      const next = lines.slice(i + attribution).find((l) => l.trim());
      if (next === undefined || !/^\s*>/.test(next)) break;
      i += attribution - 1;
      continue;
    }
    if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(t) || (/^_{10,}$/.test(t) && isHeaderBlock(lines, i + 1))) break;
    if (isHeaderBlock(lines, i)) break;
    if (/^\s*>/.test(line)) continue;
    if (/^Sent from my \w+/i.test(t) || /^Get Outlook for /i.test(t)) continue;
    kept.push(line);
  }
  return kept.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

const PIPERMAIL_PART = /^-{10,} next part -{10,}$/;

const FORWARD = /^(-{5,}\s*Forwarded message\s*-{5,}|Begin forwarded message:|-{5,}\s*Mensaje reenviado\s*-{5,}|-{5,}\s*Message transféré\s*-{5,}|-{5,}\s*Weitergeleitete Nachricht\s*-{5,})$/i;

// "On Tue, 3 Mar 2026 at 10:02, Dana <dana@x.test> wrote:" in the languages mail clients write it in, sometimes
// wrapped over two or three lines.
const WROTE = /\b(wrote|writes|a écrit|schrieb|escribió|ha scritto|escreveu|schreef|skrev|napisał)\b/i;

/**
 * Whether a line ends like an attribution: "wrote" (in one of the languages) and then a colon ending the line, with
 * no colon between. Read from the end: the pattern /wrote\b[^:]*:\s*$/ retried at each "wrote" of a long line
 * costs the square of its length.
 */
function endsAttribution(line: string): boolean {
  const t = line.trimEnd();
  if (!t.endsWith(':')) return false;
  const before = t.slice(0, -1);
  return WROTE.test(before.slice(before.lastIndexOf(':') + 1));
}
const ATTRIBUTION_START = /^(On|Le|Am|El|Il|Em|Op|Den|W dniu)\s.+/;

/** How many lines the attribution starting at line i takes (0: none). */
function attributionLines(lines: string[], i: number): number {
  const first = lines[i].trim();
  // Gmail in many locales: "2015-11-15 23:43 GMT+01:00 Jesus M. Gonzalez-Barahona <jgb@example.com>:".
  if (/^\d{4}-\d\d-\d\d \d\d?:\d\d GMT[+-]\d\d?:\d\d .*:$/.test(first)) return 1;
  if (endsAttribution(first) && (ATTRIBUTION_START.test(first) || /@|<|\d/.test(first))) return 1;
  if (!ATTRIBUTION_START.test(first)) return 0;
  let joined = first;
  for (let k = 1; k < 3 && i + k < lines.length; k++) {
    joined += ` ${lines[i + k].trim()}`;
    if (endsAttribution(joined)) return k + 1;
  }
  return 0;
}
/** Outlook's quoted header block: "From: …" with "Sent:" / "Date:" and "To:" / "Subject:" in the lines after. */
function isHeaderBlock(lines: string[], i: number): boolean {
  if (i >= lines.length || !/^\*?(From|De|Von|Van)\s*:\*?\s+\S/.test(lines[i].trim())) return false;
  const next = lines.slice(i + 1, i + 5).map((l) => l.trim());
  return next.some((l) => /^\*?(Sent|Date|Envoyé|Gesendet)\s*:/.test(l)) && next.some((l) => /^\*?(To|Subject|À|An|Objet|Betreff)\s*:/.test(l));
}
