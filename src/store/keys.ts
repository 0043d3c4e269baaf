import { createHash } from 'node:crypto';

/**
 * The only place Redis keys are built. Every key starts with the configured prefix (`estoque:` in production,
 * a random one per test) so that tests and deployments sharing a Redis never collide.
 */
export class Keys {
  constructor(readonly prefix: string = 'estoque:') {}

  // Upstream budget, per credential.
  budgetLog(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:log`;
  }
  budgetPause(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:pause`;
  }
  budgetStats(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:stats`;
  }
  /** The credential's 429s in a row, shared by every replica; ends a window after the pause (same hash slot as the log). */
  budget429Streak(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:429-streak`;
  }
  /** The change feed's own calls, to hold it to its share of the window (same hash slot as the log). */
  budgetFeedLog(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:feed-log`;
  }
  /**
   * Set while an interactive call of any process waits for a slot of the credential: the feed and background calls
   * leave the slots to it (same hash slot as the log).
   */
  budgetInteractiveWaiting(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:interactive-waiting`;
  }
  /**
   * Set for one window after an interactive call of the credential was refused a slot: the budget is saturated and
   * the change feed keeps to its smaller share (same hash slot as the log).
   */
  budgetSaturated(credentialId: string): string {
    return `${this.prefix}budget:{${credentialId}}:saturated`;
  }

  /**
   * The budget's epoch: written once, never expired; a process that finds the one it saw gone or replaced knows the
   * budget's state was lost (budget-redis.ts, LOSS). One per prefix, like the settle mark below: the only budget
   * keys outside a credential's hash slot (the budget, like the rest of the store, runs on one Redis, not a Cluster).
   */
  budgetEpoch(): string {
    return `${this.prefix}budget:epoch`;
  }
  /** Set for a settle period after a loss of the budget's state was detected: no call is granted meanwhile. */
  budgetSettling(): string {
    return `${this.prefix}budget:settling`;
  }

  // Tokens, per credential.
  tokens(credentialId: string): string {
    return `${this.prefix}tokens:${credentialId}`;
  }
  tokenRefreshLock(credentialId: string): string {
    return `${this.prefix}tokens:${credentialId}:lock`;
  }
  /**
   * String with a TTL (JSON): refusals (401) of tokens obtained moments before, how many cooldowns apart, and until
   * when no replica renews (TokenStore.recordRefusal).
   */
  tokenRefusals(credentialId: string): string {
    return `${this.prefix}tokens:${credentialId}:refusals`;
  }
  /**
   * String with a TTL: a mark written each time the credential's pair is forgotten (an unlink, a new link to another
   * login). A renewal that began before it stores nothing (TokenStore.saveUnlessForgotten).
   */
  tokensForgotten(credentialId: string): string {
    return `${this.prefix}tokens:${credentialId}:forgotten`;
  }

  // Workspace links (encrypted credentials), per workspace.
  link(workspaceId: string): string {
    return `${this.prefix}link:${workspaceId}`;
  }
  /** Claimed by the one replica that tells the linking admin that the link vanished. */
  vanishedLinkNotice(workspaceId: string): string {
    return `${this.prefix}link:${workspaceId}:vanished-notice`;
  }
  /**
   * Claimed (with a TTL) by the one replica that logs that Redis lost what it held, per generation lost (below): one
   * error line for the loss, across replicas.
   */
  linksLostNotice(generation: string): string {
    return `${this.prefix}links-lost-notice:${generation}`;
  }
  /**
   * The links' generation: a random value written once, never expired. A process that finds the one it saw gone or
   * replaced knows Redis lost what it held since (a restart without persistence, a failover to an empty replica,
   * FLUSHALL), and with it the list of linked workspaces below (LinkStore.vanished).
   */
  linksGeneration(): string {
    return `${this.prefix}links-generation`;
  }
  brokenLinkNotice(workspaceId: string): string {
    return `${this.prefix}link:${workspaceId}:broken-notice`;
  }
  /** String with a TTL: the replica checking the workspace's broken link now (a lease; one check at a time). */
  linkProbeClaim(workspaceId: string): string {
    return `${this.prefix}link:${workspaceId}:probe-claim`;
  }
  /**
   * Sorted set, member = workspace id, score = when its broken link is to be looked at (epoch ms): the automatic
   * checks' schedule, so that the token keeper's tick reads the due ones only. A hint: the link itself says whether
   * and when a check is due (WorkspaceLink.probes).
   */
  linkProbeSchedule(): string {
    return `${this.prefix}link-probes`;
  }

  /**
   * String (when, epoch ms): local mode linked the workspace to the sandbox's demo login once, or found it linked.
   * Written once, never expired: later starts leave an unlinked or broken link as it is.
   */
  localDemoLinkMade(workspaceId: string): string {
    return `${this.prefix}demo-link-made:${workspaceId}`;
  }

  /**
   * String (JSON): local mode's in-memory sandbox as it was made, its first start's time, seed and every advance
   * since, replayed at the next start (src/local/sandbox-run.ts).
   */
  localSandboxRun(): string {
    return `${this.prefix}local-sandbox-run`;
  }

  /** A known text sealed with CREDENTIALS_KEY, written with the first link: a replica with other keys refuses to start. */
  credentialsKeyCheck(): string {
    return `${this.prefix}credentials-key-check`;
  }
  /** Every workspace ever linked and not unlinked (hash field = workspace id): a link that vanishes is noticed. */
  linkedWorkspaces(): string {
    return `${this.prefix}linked-workspaces`;
  }

  // Slack requests already processed: a signed request's signature (hashed) for the 5-minute replay window, and an
  // Events API event id, so that Slack's own retries of an event are processed once, across replicas.
  seenRequest(signatureHash: string): string {
    return `${this.prefix}seen:request:${signatureHash}`;
  }
  seenEvent(eventId: string): string {
    return `${this.prefix}seen:event:${eventId}`;
  }
  /**
   * A click on "Compartilhar no canal", claimed for a few seconds (per workspace; the hash of the message, the
   * button and who clicked): a second click on it shares nothing more.
   */
  seenShareClick(workspaceId: string, clickHash: string): string {
    return `${this.prefix}seen:share:${workspaceId}:${clickHash}`;
  }

  // Slack installations.
  installation(installId: string): string {
    return `${this.prefix}installation:${installId}`;
  }
  /** String: the enterprise whose org-wide install served a request of this workspace (team). */
  workspaceEnterprise(teamId: string): string {
    return `${this.prefix}installation-org:team:${teamId}`;
  }
  /** Hash, field = team id: the workspaces an org-wide install has served. */
  enterpriseWorkspaces(enterpriseId: string): string {
    return `${this.prefix}installation-org:teams:${enterpriseId}`;
  }

  // Response cache, per workspace and endpoint.
  cache(workspaceId: string, endpoint: string, paramsHash: string): string {
    return `${this.prefix}cache:${workspaceId}:${endpoint}:${paramsHash}`;
  }
  cachePrefix(workspaceId: string): string {
    return `${this.prefix}cache:${workspaceId}:`;
  }
  cacheStats(workspaceId: string): string {
    return `${this.prefix}cache-stats:${workspaceId}`;
  }
  /**
   * String, short-lived: upstream refused a cache entry's read for good (a 403) a moment ago; the entry's readers
   * take that answer instead of asking again until it is stale (CachedReader, REFUSAL_TTL_MS).
   */
  cacheRefusal(workspaceId: string, endpoint: string, paramsHash: string): string {
    return `${this.prefix}cache-refused:${workspaceId}:${endpoint}:${paramsHash}`;
  }
  cacheRefusalPrefix(workspaceId: string): string {
    return `${this.prefix}cache-refused:${workspaceId}:`;
  }
  // Which process is asking upstream for a cache entry right now (a short lease; the others wait for its answer).
  cacheFill(workspaceId: string, endpoint: string, paramsHash: string): string {
    return `${this.prefix}cache-fill:${workspaceId}:${endpoint}:${paramsHash}`;
  }

  /**
   * String, short-lived: the material picker's read of the workspace's material list failed a moment ago (`failed`),
   * so opening the picker again (on any replica) does not ask upstream again until it expires.
   */
  materialListRead(workspaceId: string): string {
    return `${this.prefix}material-list-read:${workspaceId}`;
  }

  // Which replica refreshes a hot cache entry ahead of its TTL (the benchmark's prefetch; a short claim).
  prefetchClaim(workspaceId: string, endpoint: string, paramsHash: string): string {
    return `${this.prefix}prefetch:${workspaceId}:${endpoint}:${paramsHash}`;
  }

  // Last known stock, per workspace and company linked (hash field = material id: the company's ids).
  lastKnownStock(workspaceId: string, empresaId: number | null): string {
    return `${this.prefix}stock:${workspaceId}:c${empresaId ?? ''}`;
  }
  // What was kept of materials per workspace alone, before it was kept per company (2026-11-26): deleted with them.
  legacyMaterialKeys(workspaceId: string): string[] {
    return [
      `${this.prefix}stock:${workspaceId}`,
      `${this.prefix}stock:${workspaceId}:names`,
      `${this.prefix}digest:${workspaceId}:materials`,
    ];
  }
  // Last known material names, per workspace and company (hash field = material id), kept beside the stock.
  materialNames(workspaceId: string, empresaId: number | null): string {
    return `${this.prefix}stock:${workspaceId}:c${empresaId ?? ''}:names`;
  }

  // Slack user -> upstream user mapping, per workspace.
  userMatch(workspaceId: string, slackUserId: string): string {
    return `${this.userMatchPrefix(workspaceId)}${slackUserId}`;
  }
  userMatchPrefix(workspaceId: string): string {
    return `${this.prefix}user-match:${workspaceId}:`;
  }

  // App Home, per workspace and user (store/home-view-store.ts).
  /** String with a short TTL (JSON): Slack's hash of the Home last published to the person, and its build's number. */
  homeView(workspaceId: string, slackUserId: string): string {
    return `${this.prefix}home:${workspaceId}:${slackUserId}`;
  }
  /** Counter with a TTL twice the view's: the last number handed to a build of the person's Home. */
  homeBuilds(workspaceId: string, slackUserId: string): string {
    return `${this.prefix}home:${workspaceId}:${slackUserId}:builds`;
  }

  // Digest subscriptions and their claims.
  subscriptions(workspaceId: string): string {
    return `${this.prefix}digest:${workspaceId}:subs`;
  }
  subscriptionIndex(): string {
    return `${this.prefix}digest:index`;
  }
  digestClaim(workspaceId: string, channelId: string, localDay: string): string {
    return `${this.prefix}digest:${workspaceId}:${channelId}:claim:${localDay}`;
  }
  /** A digest post of the day whose outcome is not known yet (epoch ms of the attempt): see DigestClaims. */
  digestPostAttempt(workspaceId: string, channelId: string, localDay: string): string {
    return `${this.prefix}digest:${workspaceId}:${channelId}:attempt:${localDay}`;
  }
  digestState(workspaceId: string, channelId: string): string {
    return `${this.prefix}digest:${workspaceId}:${channelId}:state`;
  }
  /** Held for a second before each digest post: Slack takes about one message per second per channel. */
  digestPostSlot(workspaceId: string, channelId: string): string {
    return `${this.prefix}digest:${workspaceId}:${channelId}:post-slot`;
  }
  /**
   * Per company and material (hash field = material id): its stockroom, as the digest last saw it in request items
   * until 2026-11-27 (the last known stock keeps its stockroom since); read for entries kept before, never written.
   */
  digestMaterials(workspaceId: string, empresaId: number | null): string {
    return `${this.prefix}digest:${workspaceId}:materials:c${empresaId ?? ''}`;
  }

  // Change feed listeners (store/feed-listeners.ts), per workspace, and the index of workspaces that have any.
  /** Hash, field = channel id: the channel feeds. */
  feedChannels(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:channels`;
  }
  /** Hash, field = `userId:requestId`: who follows which request. */
  feedFollows(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:follows`;
  }
  /** Hash, field = user id: who follows their own requests (e-mail match). */
  feedOwnFollows(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:own`;
  }
  /** String: why the workspace's listeners are paused (absent: running). */
  feedPaused(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:paused`;
  }
  /** Hash, field = workspace id: the workspaces with at least one listener, so nothing scans keys. */
  feedListenerIndex(): string {
    return `${this.prefix}feed:index`;
  }

  // Change feed detection (store/feed-snapshot-store.ts), per workspace.
  /** Hash, field = request id: the status each request had at the last round. */
  feedSnapshotRequests(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:snap:requests`;
  }
  /**
   * Hash, field = purchase id: the pending purchases and their balance at the last receipts read. Those of a stockroom
   * that left the active list leave with its read time (feedSnapshotStockrooms), with no event.
   */
  feedSnapshotPurchases(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:snap:purchases`;
  }
  /**
   * Hash, field = stockroom id: when a round last read that stockroom's pending purchases (or found them refused for
   * good), epoch ms. Its purchases in the pending snapshot are that reading; the stockrooms least recently read go
   * first, so receipts a round cannot pay for whole are read over several rounds.
   */
  feedSnapshotStockrooms(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:snap:stockrooms`;
  }
  /** Hash, field = event id: receipt events detected whose linked requests a later round still has to read. */
  feedReceiptsWaiting(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:snap:receipts-waiting`;
  }
  /**
   * Hash, field = purchase id: how many receipts of that purchase the feed reported, and when the last (the
   * version in its next receipt event's id). Kept apart from the pending snapshot: it outlives a purchase's leaving
   * the list, and replicas of an older version never read it.
   */
  feedPurchaseReceipts(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:snap:receipts`;
  }
  /** Hash: when the snapshot was first complete, the next round is due, the last round's cost, ... */
  feedRoundState(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:rounds`;
  }
  /**
   * Sorted set, member = workspace id, score = when its next round is due (epoch ms): a tick asks only for the
   * due ones. The listener store enters a workspace with its first listener and takes it out with its last.
   */
  feedSchedule(): string {
    return `${this.prefix}feed:schedule`;
  }
  /** String with a TTL: the replica running the workspace's round now (a lease). */
  feedRoundLease(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:round-lease`;
  }
  /** Hash, field = event id: events detected and not yet delivered to every listener they match. */
  feedOutbox(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:outbox`;
  }
  /** String with a TTL: one event's delivery to one target (`posting:...` while posting, then `sent:...`). */
  feedDelivery(workspaceId: string, target: string, eventId: string): string {
    return `${this.feedDeliveryPrefix(workspaceId)}${target}:${shortHash(eventId, 24)}`;
  }
  /**
   * String: the post to a target under way or in doubt (JSON: when it was made and its events' ids), kept until
   * the post is known to have reached Slack or not.
   */
  feedPostAttempt(workspaceId: string, target: string): string {
    return `${this.feedPostAttemptPrefix(workspaceId)}${target}`;
  }
  /** What every feedPostAttempt key of the workspace starts with. */
  feedPostAttemptPrefix(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:attempt:`;
  }
  /** What every feedDelivery key of the workspace starts with. */
  feedDeliveryPrefix(workspaceId: string): string {
    return `${this.prefix}feed:${workspaceId}:sent:`;
  }
}

/** A stable, non-reversible id for a value that must not appear in keys or logs as is. */
export function shortHash(value: string, length = 16): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}
