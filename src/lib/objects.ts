/** A copy without the properties whose value is undefined (exactOptionalPropertyTypes-friendly queries). */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
