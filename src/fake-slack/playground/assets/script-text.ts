/** Shared state, DOM helpers, emoji and the mrkdwn renderer. Part of the playground script (see script.ts). */
export const SCRIPT_TEXT = String.raw`

  var EMOJI = {
    warning: '\u26A0\uFE0F', package: '\uD83D\uDCE6', white_check_mark: '\u2705', heavy_check_mark: '\u2714\uFE0F',
    x: '\u274C', no_entry: '\u26D4', no_entry_sign: '\uD83D\uDEAB', hourglass: '\u231B',
    hourglass_flowing_sand: '\u23F3', inbox_tray: '\uD83D\uDCE5', outbox_tray: '\uD83D\uDCE4',
    information_source: '\u2139\uFE0F', clipboard: '\uD83D\uDCCB', memo: '\uD83D\uDCDD', calendar: '\uD83D\uDCC5',
    date: '\uD83D\uDCC5', bell: '\uD83D\uDD14', mag: '\uD83D\uDD0D', lock: '\uD83D\uDD12', key: '\uD83D\uDD11',
    link: '\uD83D\uDD17', red_circle: '\uD83D\uDD34', large_green_circle: '\uD83D\uDFE2',
    large_yellow_circle: '\uD83D\uDFE1', large_orange_circle: '\uD83D\uDFE0', white_circle: '\u26AA',
    shopping_cart: '\uD83D\uDED2', truck: '\uD83D\uDE9A', chart_with_upwards_trend: '\uD83D\uDCC8',
    chart_with_downwards_trend: '\uD83D\uDCC9', bar_chart: '\uD83D\uDCCA', rotating_light: '\uD83D\uDEA8',
    exclamation: '\u2757', heavy_exclamation_mark: '\u2757', question: '\u2753', wrench: '\uD83D\uDD27',
    hammer_and_wrench: '\uD83D\uDEE0\uFE0F', office: '\uD83C\uDFE2', bulb: '\uD83D\uDCA1', eyes: '\uD83D\uDC40',
    tada: '\uD83C\uDF89', '+1': '\uD83D\uDC4D', thumbsup: '\uD83D\uDC4D', moneybag: '\uD83D\uDCB0',
    arrows_counterclockwise: '\uD83D\uDD04', arrow_right: '\u27A1\uFE0F', arrow_left: '\u2B05\uFE0F',
    double_vertical_bar: '\u23F8\uFE0F', sunrise: '\uD83C\uDF05', speech_balloon: '\uD83D\uDCAC',
    bust_in_silhouette: '\uD83D\uDC64', busts_in_silhouette: '\uD83D\uDC65', stopwatch: '\u23F1\uFE0F',
    calendar_spiral: '\uD83D\uDDD3\uFE0F', spiral_calendar_pad: '\uD83D\uDDD3\uFE0F', warning_sign: '\u26A0\uFE0F'
  };

  var state = {
    hello: null,
    users: {},
    messages: new Map(),
    modals: [],
    history: [],
    historyIndex: -1,
    suggestionIndex: 0,
    localSeq: 0,
    tab: 'channel',
    home: null
  };

  var $ = function (id) { return document.getElementById(id); };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

  // ---- mrkdwn ---------------------------------------------------------------------------------------

  function decodeEntities(text) {
    return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }

  function withEmoji(text) {
    return text.replace(/:([a-z0-9_+\-]+):/g, function (all, name) {
      return Object.prototype.hasOwnProperty.call(EMOJI, name) ? EMOJI[name] : all;
    });
  }

  function appendText(parent, raw, emoji) {
    if (!raw) return;
    var text = decodeEntities(raw);
    parent.appendChild(document.createTextNode(emoji === false ? text : withEmoji(text)));
  }

  function safeUrl(url) {
    return /^(https?:|mailto:)/i.test(url) ? url : null;
  }

  function angleToken(inner, parent) {
    var bar = inner.indexOf('|');
    var head = bar < 0 ? inner : inner.slice(0, bar);
    var label = bar < 0 ? null : inner.slice(bar + 1);
    var first = head.charAt(0);
    if (first === '@') {
      var id = head.slice(1);
      var name = label || state.users[id] || id;
      parent.appendChild(el('span', 'mention', '@' + decodeEntities(name)));
      return;
    }
    if (first === '#') {
      var known = state.hello && state.hello.channel.id === head.slice(1) ? state.hello.channel.name : null;
      parent.appendChild(el('span', 'mention', '#' + decodeEntities(label || known || head.slice(1))));
      return;
    }
    if (first === '!') {
      var special = head.slice(1).split('^')[0];
      parent.appendChild(el('span', 'mention', label ? decodeEntities(label) : '@' + special));
      return;
    }
    var url = safeUrl(decodeEntities(head));
    if (url === null) {
      appendText(parent, label || head);
      return;
    }
    var a = el('a');
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    appendText(a, label || head, false);
    parent.appendChild(a);
  }

  var INLINE = [
    { kind: 'code', re: /\u0060([^\u0060\n]+)\u0060/ },
    { kind: 'angle', re: /<([^<>\n]+)>/ },
    { kind: 'b', re: /(?<![\w*])\*(?=\S)([^*\n]*?\S)?\*(?![\w*])/ },
    { kind: 'i', re: /(?<![\w_])_(?=\S)([^_\n]*?\S)?_(?![\w_])/ },
    { kind: 's', re: /(?<![\w~])~(?=\S)([^~\n]*?\S)?~(?![\w~])/ }
  ];

  function renderInline(text, parent) {
    var rest = text;
    while (rest.length > 0) {
      var best = null;
      for (var i = 0; i < INLINE.length; i++) {
        var m = INLINE[i].re.exec(rest);
        if (m && (best === null || m.index < best.m.index)) best = { kind: INLINE[i].kind, m: m };
      }
      if (best === null || best.m[0].length === 0) { appendText(parent, rest); return; }
      appendText(parent, rest.slice(0, best.m.index));
      var inner = best.m[1] === undefined ? '' : best.m[1];
      if (best.kind === 'code') {
        parent.appendChild(el('code', null, decodeEntities(inner)));
      } else if (best.kind === 'angle') {
        angleToken(inner, parent);
      } else {
        var node = el(best.kind);
        renderInline(inner, node);
        parent.appendChild(node);
      }
      rest = rest.slice(best.m.index + best.m[0].length);
    }
  }

  function renderMrkdwn(text, parent) {
    var parts = String(text).split(/\u0060\u0060\u0060/);
    parts.forEach(function (part, i) {
      if (i % 2 === 1 && i < parts.length - 1) {
        parent.appendChild(el('pre', null, decodeEntities(part.replace(/^\n/, ''))));
        return;
      }
      if (i % 2 === 1) part = '\u0060\u0060\u0060' + part;
      var lines = part.split('\n');
      lines.forEach(function (line, j) {
        var quote = /^(>|&gt;) ?/.exec(line);
        if (quote) {
          var bq = el('blockquote', 'quote');
          renderInline(line.slice(quote[0].length), bq);
          parent.appendChild(bq);
          return;
        }
        renderInline(line, parent);
        if (j < lines.length - 1) parent.appendChild(document.createTextNode('\n'));
      });
    });
    return parent;
  }

  /** A text object: mrkdwn or plain_text (emoji shortcodes only when emoji is not false). */
  function textObject(obj, className) {
    var span = el('span', className || null);
    if (!isObj(obj)) return span;
    if (obj.type === 'mrkdwn') {
      span.classList.add('mrkdwn');
      renderMrkdwn(String(obj.text || ''), span);
    } else {
      span.classList.add('plain');
      span.textContent = obj.emoji === false ? String(obj.text || '') : withEmoji(String(obj.text || ''));
    }
    return span;
  }

  function plainText(obj) {
    if (!isObj(obj)) return '';
    return obj.emoji === false ? String(obj.text || '') : withEmoji(String(obj.text || ''));
  }

`;
