/**
 * A map that remembers at most `capacity` values and forgets them all when full: cheap, and
 * enough for values derived again and again from the same few inputs (the keys of the operators,
 * agents and programs that appear in transaction after transaction).
 */
export class BoundedCache<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K, derive: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      if (this.values.size >= this.capacity) this.values.clear();
      value = derive();
      this.values.set(key, value);
    }
    return value;
  }
}
