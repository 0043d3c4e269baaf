import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CREDENTIALS_KEY_FILE = 'credentials.key';

export interface LocalCredentialsKey {
  /** base64 of 32 bytes, as CREDENTIALS_KEY. */
  key: string;
  source: 'environment' | 'file' | 'generated';
  file: string | null;
}

/**
 * CREDENTIALS_KEY when set; otherwise the key kept in DATA_DIR, generated on the first run (mode 0600), so the
 * credentials sealed in the local store can still be opened after a restart.
 */
export async function localCredentialsKey(
  configured: string | undefined,
  dataDir: string,
): Promise<LocalCredentialsKey> {
  if (configured) return { key: configured, source: 'environment', file: null };
  const file = join(dataDir, CREDENTIALS_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing !== null) return { key: existing, source: 'file', file };
  const key = randomBytes(32).toString('base64');
  try {
    // `wx`: never overwrite a key another start wrote meanwhile (the credentials sealed with it would be lost).
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const written = await readKeyFile(file);
    if (written === null) throw error;
    return { key: written, source: 'file', file };
  }
  // The umask may have cleared bits of the mode, never added any; chmod makes it exact.
  await chmod(file, 0o600);
  return { key, source: 'generated', file };
}

async function readKeyFile(file: string): Promise<string | null> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (Buffer.from(text, 'base64').length !== 32) {
    throw new Error(
      `${file} does not hold a credentials key (base64 of 32 bytes). Restore it, or delete it together with the store file to start over.`,
    );
  }
  return text;
}
