/** The Node.js versions package.json's `engines` accept: 22.12 and later 22s, and 24 on. */
export const SUPPORTED_NODE = '^22.12.0 || >=24.0.0';

/** Whether `version` (process.versions.node, "24.21.0") is one the bot supports. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (major === 22) return minor >= 12;
  return major >= 24;
}
