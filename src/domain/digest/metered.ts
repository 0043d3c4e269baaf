import type { Metrics } from '../../lib/metrics.js';
import { DigestService } from './digest-service.js';
import type { DigestView } from './digest-view.js';
import type { DigestDelivery, DigestPublisher, PublishOutcome } from './publisher.js';

/**
 * Counts digest posts by outcome (the publisher's own outcome kinds, `fallback` for a digest Slack refused whose plain
 * fallback went in its place, or `error` when it threw).
 */
export class MeteredPublisher implements DigestPublisher {
  constructor(
    private readonly inner: DigestPublisher,
    private readonly metrics: Pick<Metrics, 'digestPost'>,
  ) {}

  async publish(delivery: DigestDelivery, guard?: () => Promise<boolean>): Promise<PublishOutcome> {
    try {
      const outcome = await this.inner.publish(delivery, guard);
      this.metrics.digestPost(outcome.kind === 'posted' && outcome.refused ? 'fallback' : outcome.kind);
      return outcome;
    } catch (error) {
      this.metrics.digestPost('error');
      throw error;
    }
  }
}

/** The digest service, counting the digests it could not build (the scheduler retries them later). */
export class MeteredDigestService extends DigestService {
  constructor(
    args: ConstructorParameters<typeof DigestService>,
    private readonly metrics: Pick<Metrics, 'digestBuildFailed'>,
  ) {
    super(...args);
  }

  override async build(query: Parameters<DigestService['build']>[0]): Promise<DigestView> {
    try {
      return await super.build(query);
    } catch (error) {
      this.metrics.digestBuildFailed();
      throw error;
    }
  }
}
