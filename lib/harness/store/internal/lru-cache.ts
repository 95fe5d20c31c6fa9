/**
 * A small least-recently-used map: at most `maxSize` keys; reading or writing a key makes it
 * the most recent, and writing past the limit evicts the least recent. Built on `Map`'s
 * insertion order, so every operation is O(1).
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly maxSize: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.maxSize <= 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.maxSize) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  clear(): void {
    this.map.clear();
  }
}
