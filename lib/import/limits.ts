export { IMPORT_LIMITS } from '../core/input-limits';

/** A size for messages: "700 MB", "16 MB", "900 KB". */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
