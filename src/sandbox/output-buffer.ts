/**
 * Keeps the head and the tail of a byte stream within a fixed budget and counts what falls in
 * between, so a command printing gigabytes costs the server a constant amount of memory.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer;
  private headLength = 0;
  private readonly tail: Buffer;
  private tailStart = 0; // index of the oldest byte in the ring
  private tailLength = 0;
  private total = 0;

  constructor(limitBytes: number) {
    const limit = Math.max(2, Math.floor(limitBytes));
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
    this.head = Buffer.alloc(this.headLimit);
    this.tail = Buffer.alloc(this.tailLimit);
  }

  get totalBytes(): number {
    return this.total;
  }

  get omittedBytes(): number {
    return Math.max(0, this.total - this.headLength - this.tailLength);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let offset = 0;
    if (this.headLength < this.headLimit) {
      const n = Math.min(chunk.length, this.headLimit - this.headLength);
      chunk.copy(this.head, this.headLength, 0, n);
      this.headLength += n;
      offset = n;
    }
    if (offset < chunk.length) this.pushTail(chunk.subarray(offset));
  }

  private pushTail(data: Buffer): void {
    if (this.tailLimit === 0) return;
    if (data.length >= this.tailLimit) {
      data.copy(this.tail, 0, data.length - this.tailLimit);
      this.tailStart = 0;
      this.tailLength = this.tailLimit;
      return;
    }
    for (let written = 0; written < data.length;) {
      const writeAt = (this.tailStart + this.tailLength) % this.tailLimit;
      if (this.tailLength === this.tailLimit) {
        // Full ring: overwrite the oldest bytes.
        const n = Math.min(data.length - written, this.tailLimit - this.tailStart);
        data.copy(this.tail, this.tailStart, written, written + n);
        this.tailStart = (this.tailStart + n) % this.tailLimit;
        written += n;
      } else {
        const n = Math.min(data.length - written, this.tailLimit - writeAt, this.tailLimit - this.tailLength);
        data.copy(this.tail, writeAt, written, written + n);
        this.tailLength += n;
        written += n;
      }
    }
  }

  private tailBytes(): Buffer {
    if (this.tailLength < this.tailLimit) return Buffer.from(this.tail.subarray(0, this.tailLength));
    return Buffer.concat([this.tail.subarray(this.tailStart), this.tail.subarray(0, this.tailStart)]);
  }

  /** The kept bytes as they came, with a marker line where bytes were left out. */
  bytes(): Buffer {
    const head = this.head.subarray(0, this.headLength);
    const tail = this.tailBytes();
    const omitted = this.omittedBytes;
    if (omitted === 0) return Buffer.concat([head, tail]);
    return Buffer.concat([head, Buffer.from(`\n[... ${omitted} bytes of output omitted ...]\n`), tail]);
  }

  /** The kept bytes as UTF-8 (invalid sequences replaced), with a marker where bytes were left out. */
  render(): string {
    const head = this.head.subarray(0, this.headLength);
    const tail = this.tailBytes();
    const omitted = this.omittedBytes;
    if (omitted === 0) return decodeUtf8(Buffer.concat([head, tail]));
    return `${decodeUtf8(head)}\n[... ${omitted} bytes of output omitted ...]\n${decodeUtf8(tail)}`;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false });

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
