// Apart from normalize.ts so the database module (opened by the options page too) does not load the token counter.

/** A title from the text's first non-empty line: heading marks dropped, a long line cut with "…". */
export function titleFrom(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const t = line.replace(/^#+\s*/, '').trim();
  return t.length > 80 ? t.slice(0, 77).trimEnd() + '…' : t;
}
