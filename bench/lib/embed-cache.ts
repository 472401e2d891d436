import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../../lib/embed/embedder';

/**
 * Embeddings cached on disk by sha256 of the text and model id, so reruns skip the model. Lives under
 * node_modules/.cache (never committed).
 */
export class EmbedCache {
  private readonly file: string;
  private readonly map = new Map<string, Float32Array>();
  private dirty = false;

  constructor(dir: string, modelId: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, `${modelId.replace(/[^\w.-]/g, '_')}.bin`);
    if (existsSync(this.file)) this.read();
  }

  private key(text: string): string {
    return createHash('sha256').update(text).digest('hex').slice(0, 32);
  }

  // Format: repeated [32-byte ascii key][u32 dim][dim × f32].
  private read(): void {
    const buf = readFileSync(this.file);
    let o = 0;
    while (o + 36 <= buf.length) {
      const k = buf.toString('ascii', o, o + 32);
      const dim = buf.readUInt32LE(o + 32);
      if (o + 36 + dim * 4 > buf.length) break; // a file cut short (a run stopped mid-write): its whole records count
      o += 36;
      const v = new Float32Array(dim);
      for (let i = 0; i < dim; i++) v[i] = buf.readFloatLE(o + i * 4);
      o += dim * 4;
      this.map.set(k, v);
    }
  }

  save(): void {
    if (!this.dirty) return;
    const chunks: Buffer[] = [];
    for (const [k, v] of this.map) {
      const b = Buffer.alloc(36 + v.length * 4);
      b.write(k, 0, 'ascii');
      b.writeUInt32LE(v.length, 32);
      for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i], 36 + i * 4);
      chunks.push(b);
    }
    // Written aside and renamed over the old file, so a run stopped mid-write leaves the old cache whole.
    writeFileSync(this.file + '.tmp', Buffer.concat(chunks));
    renameSync(this.file + '.tmp', this.file);
    this.dirty = false;
  }

  async embedAll(texts: string[], embedder: () => Promise<Embedder>, onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
    // Shortest first: a batch is padded to its longest text, so batches of like lengths waste the least work.
    const missing = [...new Set(texts.filter((t) => !this.map.has(this.key(t))))].sort((a, b) => a.length - b.length);
    if (missing.length) {
      const e = await embedder();
      const step = 32;
      for (let i = 0; i < missing.length; i += step) {
        const batch = missing.slice(i, i + step);
        const vs = await e.embed(batch);
        batch.forEach((t, j) => this.map.set(this.key(t), vs[j]));
        this.dirty = true;
        onProgress?.(Math.min(i + step, missing.length), missing.length);
      }
      this.save();
    }
    return texts.map((t) => this.map.get(this.key(t))!);
  }
}
