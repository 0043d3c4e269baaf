import { type SecretBox, SecretBoxError } from './crypto.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

const CHECK_TEXT = 'estoque-bot credentials key check';
const AAD = 'credentials-key-check';

export type KeyCheckOutcome =
  /** The record opens with the configured keys. */
  | { state: 'ok'; resealed: boolean }
  /** Nothing sealed in the store yet (no link ever made): the first link writes the record. */
  | { state: 'empty' }
  /** An older store with links but no record: a link opened, so the record was written now. */
  | { state: 'written' };

/**
 * A replica whose keys cannot open what the store holds must not start: every workspace would read as unlinked
 * (issue 12.8). The proof is a known text sealed with the key of the first link; it is sealed again with the
 * current key once it opened with a previous one, like links are.
 */
export class CredentialsKeyCheck {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly box: SecretBox,
  ) {}

  async writeIfAbsent(): Promise<void> {
    await this.kv.set(this.keys.credentialsKeyCheck(), this.box.seal(CHECK_TEXT, AAD), {
      onlyIfAbsent: true,
    });
  }

  /**
   * Throws CredentialsKeyMismatchError when the record (or, in a store from before the record, every stored link)
   * does not open. `openLink` opens one stored link by workspace id (LinkStore.get).
   */
  async verify(
    linkedWorkspaces: () => Promise<string[]>,
    openLink: (workspaceId: string) => Promise<unknown>,
  ): Promise<KeyCheckOutcome> {
    const sealed = await this.kv.get(this.keys.credentialsKeyCheck());
    if (sealed !== null) {
      let text: string;
      try {
        text = this.box.open(sealed, AAD);
      } catch (error) {
        if (error instanceof SecretBoxError)
          throw new CredentialsKeyMismatchError(sealed.split('.')[1] ?? '?', this.box);
        throw error;
      }
      if (text !== CHECK_TEXT) throw new CredentialsKeyMismatchError(sealed.split('.')[1] ?? '?', this.box);
      if (!this.box.needsResealing(sealed)) return { state: 'ok', resealed: false };
      await this.kv.set(this.keys.credentialsKeyCheck(), this.box.seal(CHECK_TEXT, AAD));
      return { state: 'ok', resealed: true };
    }
    const workspaces = await linkedWorkspaces();
    if (workspaces.length === 0) return { state: 'empty' };
    let sealedWith = '?';
    for (const workspaceId of workspaces.slice(0, 20)) {
      try {
        await openLink(workspaceId);
        await this.writeIfAbsent();
        return { state: 'written' };
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        if (!(cause instanceof SecretBoxError) && !(error instanceof SecretBoxError)) throw error;
      }
      const raw = await this.kv.get(this.keys.link(workspaceId));
      sealedWith = /"sealed":"v1\.([0-9a-f]+)\./.exec(raw ?? '')?.[1] ?? sealedWith;
    }
    throw new CredentialsKeyMismatchError(sealedWith, this.box);
  }
}

/** The configured keys cannot open the store's sealed values: the replica refuses to start, saying how to fix it. */
export class CredentialsKeyMismatchError extends Error {
  override readonly name = 'CredentialsKeyMismatchError';
  readonly code = 'credentials_key_mismatch';
  constructor(
    readonly sealedWithKeyId: string,
    box: SecretBox,
  ) {
    const previous = box.keyIds.filter((id) => id !== box.currentKeyId);
    super(
      [
        `CREDENTIALS_KEY does not open what this Redis holds: it was sealed with key id ${sealedWithKeyId}; ` +
          `CREDENTIALS_KEY has id ${box.currentKeyId}` +
          (previous.length > 0
            ? ` and CREDENTIALS_KEY_PREVIOUS has ${previous.join(', ')}.`
            : ' and CREDENTIALS_KEY_PREVIOUS is empty.'),
        'Fix: set CREDENTIALS_KEY to the key the other replicas (or the last deployment) use; while rotating, keep ' +
          'the old key in CREDENTIALS_KEY_PREVIOUS. (A key id is the first 8 hex digits of the sha256 of the key: ' +
          'echo -n "$KEY" | base64 -d | sha256sum | cut -c1-8.)',
        'If that key is lost for good, every workspace must link again: delete the key check ' +
          '(<REDIS_KEY_PREFIX>credentials-key-check) and the links (<REDIS_KEY_PREFIX>link:*), then start.',
      ].join('\n'),
    );
  }
}
