import type { ReadOptions } from '../domain/cached-reader.js';
import type { LinkService } from '../domain/links/link-service.js';
import type { PurchaseService } from '../domain/purchases/purchase-service.js';
import type { RequestService } from '../domain/requests/request-service.js';
import type { Route } from '../domain/routes.js';
import type { CatalogService } from '../domain/stock/catalog-service.js';
import type { MaterialSearchService } from '../domain/stock/material-search.js';
import type { AnswerCallOptions, Workspaces } from '../domain/workspace.js';
import {
  type Message,
  type RenderContext,
  renderCatalog,
  renderFollowList,
  renderHelp,
  renderLinkStatus,
  renderMaterialSearch,
  renderPendingPurchases,
  renderPurchaseList,
  renderPurchaseRequests,
  renderReceiptList,
  renderRequestDetail,
  renderRequestHistory,
  renderRequestList,
  renderStockrooms,
} from '../render/index.js';
import type { FeedListenerStore } from '../store/feed-listeners.js';

export interface AnswerServices {
  workspaces: Workspaces;
  catalog: CatalogService;
  materials: MaterialSearchService;
  requests: RequestService;
  purchases: PurchaseService;
  linkService: LinkService;
  /**
   * Who follows which request: a request answer shows `Acompanhar` or `Deixar de acompanhar`, and `acompanhando`
   * lists the reader's follows.
   */
  follows: Pick<FeedListenerStore, 'getFollow' | 'listFollows' | 'getOwnFollow'>;
  /** Local mode (the sandbox runs in this process): the help names `/estoque sandbox avancar`. */
  localMode?: boolean;
}

export interface AnswerRequest {
  workspaceId: string;
  userId: string;
  correlationId: string;
  render: RenderContext;
  /** `Atualizar`: ask upstream even when the cache is fresh. */
  bypassCache?: boolean;
  /** The Slack user's e-mail, read only for `/solicitacao minhas`. */
  userEmail?: () => Promise<string | null>;
  /** The answer's deadline, who watches its calls, saved-only reads (see AnswerCallOptions). */
  calls?: AnswerCallOptions;
}

/**
 * Every answer the bot can show, by route: commands, buttons, `Atualizar`, `Compartilhar no canal` and the
 * retry button all come here, so the same route always renders the same way.
 */
export class Answers {
  constructor(private readonly services: AnswerServices) {}

  async answer(route: Route, request: AnswerRequest): Promise<Message> {
    const { render } = request;
    switch (route.view) {
      case 'help':
        return renderHelp(render, { localMode: this.services.localMode === true });
      case 'status':
        return renderLinkStatus(await this.services.linkService.status(request.workspaceId), render);
      case 'following':
        // From the store alone: the follows of a workspace that is not linked (paused) are listed too.
        return this.following(request, route.page);
      default:
        break;
    }
    const ws = await this.services.workspaces.resolve(
      request.workspaceId,
      'interactive',
      request.correlationId,
      request.calls,
    );
    const options: ReadOptions = { bypassCache: request.bypassCache ?? false };
    const s = this.services;
    switch (route.view) {
      case 'stockrooms':
        return renderStockrooms(await s.catalog.activeStockrooms(ws, options), render, route.page);
      case 'types':
        return renderCatalog('types', await s.catalog.types(ws, options), render, route.page);
      case 'categories':
        return renderCatalog('categories', await s.catalog.categories(ws, options), render, route.page);
      case 'materials':
        return renderMaterialSearch(
          await s.materials.search(
            ws,
            {
              text: route.text,
              page: route.page,
              ...(route.stockroomId !== undefined && { stockroomId: route.stockroomId }),
            },
            options,
          ),
          render,
        );
      case 'request': {
        const detail = await s.requests.detail(ws, route.id, route.page, options);
        return renderRequestDetail(detail, render, await this.followState(request, route.id));
      }
      case 'history': {
        const history = await s.requests.history(ws, route.id, route.page, options);
        return renderRequestHistory(history, render, await this.followState(request, route.id));
      }
      case 'requests': {
        const email = request.userEmail ?? (async () => null);
        const list = route.mine
          ? await s.requests.mine(ws, { id: request.userId, email }, route.filters, route.page, options)
          : await s.requests.list(ws, route.filters, route.page, options);
        return renderRequestList(list, render, await this.followedRequests(request));
      }
      case 'pending':
        return renderPendingPurchases(
          await s.purchases.pending(ws, route.stockroomId ?? null, route.page, options),
          render,
        );
      case 'purchases':
        return renderPurchaseList(await s.purchases.list(ws, route.filters, route.page, options), render);
      case 'purchase':
        return renderPurchaseRequests(
          await s.purchases.linkedRequests(ws, route.id, route.page, options),
          render,
        );
      case 'receipts':
        return renderReceiptList(await s.purchases.receipts(ws, route.filters, route.page, options), render);
    }
  }

  /** The requests the reader (who asked, or who clicked) follows, and whether they follow their own. */
  private async following(request: AnswerRequest, page: number): Promise<Message> {
    const [follows, own] = await Promise.all([
      this.services.follows.listFollows(request.workspaceId, request.userId),
      this.services.follows.getOwnFollow(request.workspaceId, request.userId),
    ]);
    return renderFollowList(follows, own, request.render, page);
  }

  /** The requests the reader follows, for list rows; unknown (every row offers `Acompanhar`) on a store failure. */
  private async followedRequests(request: AnswerRequest): Promise<{ followed: ReadonlySet<number> | null }> {
    if (request.render.shared) return { followed: null };
    const follows = await this.services.follows
      .listFollows(request.workspaceId, request.userId)
      .catch(() => null);
    return { followed: follows ? new Set(follows.map((follow) => follow.requestId)) : null };
  }

  /** A store failure only costs the toggle its state: the answer still shows, with `Acompanhar`. */
  private async followState(
    request: AnswerRequest,
    requestId: number,
  ): Promise<{ following: boolean | null }> {
    if (request.render.shared) return { following: null };
    const follow = await this.services.follows
      .getFollow(request.workspaceId, request.userId, requestId)
      .catch(() => null);
    return { following: follow !== null };
  }
}
