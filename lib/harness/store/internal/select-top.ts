/**
 * Moves the `count` best items of `items` (best = smallest by `compare`, which must be a
 * total order) to its front, sorted. Quickselect then a sort of the kept prefix: O(n) on
 * average plus O(count log count), whatever the input order (a bounded heap degrades to
 * O(n log count) with a full sift on every item when the input arrives worst-first, which is
 * exactly what an oldest-first snapshot does). Returns the sorted prefix.
 */
export function selectTop(
  items: Int32Array,
  count: number,
  compare: (a: number, b: number) => number,
): Int32Array {
  const length = items.length;
  const keep = Math.max(0, Math.min(count, length));
  if (keep === 0) return items.subarray(0, 0);
  if (keep < length) {
    let low = 0;
    let high = length - 1;
    // Find the item of rank `keep - 1` (0-based) by narrowing [low, high] around it.
    const target = keep - 1;
    while (high > low) {
      // Median of three keeps sorted and reverse-sorted inputs linear.
      const middle = (low + high) >>> 1;
      if (compare(items[middle]!, items[low]!) < 0) swap(items, middle, low);
      if (compare(items[high]!, items[low]!) < 0) swap(items, high, low);
      if (compare(items[high]!, items[middle]!) < 0) swap(items, high, middle);
      const pivot = items[middle]!;
      let left = low;
      let right = high;
      while (left <= right) {
        while (compare(items[left]!, pivot) < 0) left++;
        while (compare(items[right]!, pivot) > 0) right--;
        if (left <= right) {
          swap(items, left, right);
          left++;
          right--;
        }
      }
      if (target <= right) high = right;
      else if (target >= left) low = left;
      else break;
    }
  }
  const top = items.subarray(0, keep);
  top.sort(compare);
  return top;
}

function swap(items: Int32Array, a: number, b: number): void {
  const value = items[a]!;
  items[a] = items[b]!;
  items[b] = value;
}
