import { shortHash } from '../store/keys.js';

/** One upstream login, as linked by a workspace admin. `password` is a secret: never log it. */
export interface UpstreamCredential {
  /** Stable and non-reversible: names the credential in keys, budget and logs. */
  id: string;
  login: string;
  password: string;
  empresaId: number | null;
  unidadeId: number | null;
}

/** The budget and the token chain belong to the login at a token issuer, whichever workspaces share it. */
export function credentialIdOf(authUrl: string, login: string): string {
  return shortHash(`${authUrl.replace(/\/+$/, '')}\n${login.trim().toLowerCase()}`);
}
