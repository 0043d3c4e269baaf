import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (passwords, tokens). Each value carries the id of the key that sealed it, so
 * CREDENTIALS_KEY can be rotated: the new key seals, old keys (CREDENTIALS_KEY_PREVIOUS) still open.
 * Format: `v1.<keyId>.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    if (currentKey.length !== 32) throw new Error('CREDENTIALS_KEY must be 32 bytes');
    this.currentKeyId = keyIdOf(currentKey);
    this.keys.set(this.currentKeyId, currentKey);
    for (const key of previousKeys) {
      if (key.length !== 32) throw new Error('every previous credentials key must be 32 bytes');
      this.keys.set(keyIdOf(key), key);
    }
  }

  static fromBase64(current: string, previous: string[] = []): SecretBox {
    return new SecretBox(
      Buffer.from(current, 'base64'),
      previous.map((k) => Buffer.from(k, 'base64')),
    );
  }

  /** `aad` binds a value to where it is stored (a workspace id), so a copied value does not open elsewhere. */
  seal(plaintext: string, aad: string): string {
    const key = this.keys.get(this.currentKeyId)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', this.currentKeyId, b64(iv), b64(tag), b64(ciphertext)].join('.');
  }

  open(sealed: string, aad: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== 'v1') throw new SecretBoxError('malformed sealed value');
    const [, keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
    const key = this.keys.get(keyId);
    if (!key)
      throw new SecretBoxError(
        `sealed with unknown key ${keyId}: was CREDENTIALS_KEY rotated without keeping the old one?`,
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch (cause) {
      throw new SecretBoxError('sealed value failed authentication', { cause });
    }
  }

  /** Ids of every key this box opens with, the current one first (an id is not secret: 8 hex digits of a hash). */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** True when the value was sealed with an older key and should be sealed again. */
  needsResealing(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentKeyId;
  }
}

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
  readonly code = 'secret_box';
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function b64(buffer: Buffer): string {
  return buffer.toString('base64url');
}
