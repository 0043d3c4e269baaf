/** Messages, the composer with its command hints, and the events from the fake Slack. Part of the playground script (see script.ts). */
export const SCRIPT_PAGE = String.raw`
  // ---- messages -------------------------------------------------------------------------------------

  function timeOf(ms) {
    return new Date(ms).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit' });
  }

  function keyOf(m) { return m.channel + ':' + m.ts; }

  function renderMessage(m) {
    var article = el('article', 'message' + (m.ephemeral ? ' ephemeral' : '') + (m.directMessage ? ' dm' : ''));
    article.dataset.channel = m.channel;
    article.dataset.ts = m.ts;
    article.dataset.ephemeral = String(Boolean(m.ephemeral));
    var avatar = el('div', 'avatar' + (m.local ? ' slackbot' : ''), m.local ? '\uD83E\uDD16' : '\uD83D\uDCE6');
    avatar.setAttribute('aria-hidden', 'true');
    article.appendChild(avatar);
    var body = el('div', 'message-body');
    var meta = el('div', 'meta');
    meta.appendChild(el('span', 'author', m.local ? 'Slackbot' : state.hello ? state.hello.bot.name : 'estoque-bot'));
    if (!m.local) meta.appendChild(el('span', 'app-badge', 'APP'));
    var time = el('time', null, timeOf(m.at));
    time.dateTime = new Date(m.at).toISOString();
    meta.appendChild(time);
    body.appendChild(meta);
    if (m.ephemeral) body.appendChild(el('div', 'only-you', '\uD83D\uDC41\uFE0F Somente você pode ver esta mensagem'));
    if (m.directMessage) body.appendChild(el('div', 'dm-note', 'Mensagem direta para você'));
    var content = el('div', 'blocks');
    if (Array.isArray(m.blocks) && m.blocks.length > 0) {
      renderBlocks(m.blocks, { channel: m.channel, ts: m.ts }, content);
    } else {
      var fallback = el('div', 'fallback-text');
      renderMrkdwn(m.text || '', fallback);
      content.appendChild(fallback);
    }
    body.appendChild(content);
    article.appendChild(body);
    addMessageMenu(article, m);
    return article;
  }

  function nearBottom(box) { return box.scrollHeight - box.scrollTop - box.clientHeight < 80; }

  function upsertMessage(m) {
    var box = $('messages');
    var stick = nearBottom(box);
    var key = keyOf(m);
    var existing = box.querySelector('article[data-key="' + CSS.escape(key) + '"]');
    if (m.deleted) {
      state.messages.delete(key);
      if (existing) existing.remove();
      return;
    }
    state.messages.set(key, m);
    var node = renderMessage(m);
    node.dataset.key = key;
    if (existing) existing.replaceWith(node);
    else box.appendChild(node);
    $('empty-note').hidden = true;
    if (stick || !existing) box.scrollTop = box.scrollHeight;
  }

  /** A message from Slack itself (a command that failed), shown only to the person, as Slackbot would. */
  function notice(text) {
    state.localSeq += 1;
    upsertMessage({
      channel: 'local', ts: 'local-' + state.localSeq, text: text, blocks: [], ephemeral: true,
      deleted: false, directMessage: false, at: Date.now(), local: true
    });
  }

  // ---- composer -------------------------------------------------------------------------------------

  function commandsMatching(typed) {
    var word = typed.split(/\s/)[0].toLowerCase();
    return (state.hello ? state.hello.commands : []).filter(function (c) { return c.command.indexOf(word) === 0; });
  }

  function exactCommand(typed) {
    var word = typed.trim().split(/\s+/)[0].toLowerCase();
    return (state.hello ? state.hello.commands : []).find(function (c) { return c.command === word; });
  }

  function updateSuggestions() {
    var box = $('message-box');
    var list = $('suggestions');
    var hint = $('usage-hint');
    var value = box.value;
    list.textContent = '';
    var picking = value.charAt(0) === '/' && !/\s/.test(value);
    var matches = picking ? commandsMatching(value) : [];
    list.hidden = matches.length === 0;
    if (state.suggestionIndex >= matches.length) state.suggestionIndex = 0;
    matches.forEach(function (c, i) {
      var li = el('li');
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(i === state.suggestionIndex));
      li.appendChild(el('span', 'cmd', c.command));
      li.appendChild(el('span', 'usage', c.usageHint));
      li.appendChild(el('span', 'desc', c.description));
      li.addEventListener('mousedown', function (event) {
        event.preventDefault();
        complete(c);
      });
      list.appendChild(li);
    });
    var current = !picking && value.charAt(0) === '/' ? exactCommand(value) : null;
    hint.hidden = !current;
    hint.textContent = current ? current.command + ' ' + current.usageHint : '';
  }

  function complete(c) {
    var box = $('message-box');
    box.value = c.command + ' ';
    box.focus();
    updateSuggestions();
  }

  function send() {
    var box = $('message-box');
    var value = box.value.trim();
    if (value === '') return;
    box.value = '';
    state.history.push(value);
    state.historyIndex = -1;
    updateSuggestions();
    if (value.charAt(0) !== '/') {
      notice('Este playground só envia comandos do app: ' + commandNames() + '.');
      return;
    }
    var space = value.search(/\s/);
    var command = (space < 0 ? value : value.slice(0, space)).toLowerCase();
    var text = space < 0 ? '' : value.slice(space + 1).trim();
    post('/playground/command', { command: command, text: text }).then(function (answer) {
      if (answer.ok) return;
      if (answer.error === 'not_a_command') {
        notice(command + ' não é um comando válido. Os comandos do app são ' + commandNames() + '.');
      } else if (answer.error === 'operation_timeout') {
        notice(command + ' falhou: o app demorou mais de 3 segundos para responder (operation_timeout).');
      } else {
        notice(command + ' falhou com o erro "' + answer.error + '".');
      }
    });
  }

  function commandNames() {
    return (state.hello ? state.hello.commands : []).map(function (c) { return c.command; }).join(', ');
  }

  function setUpComposer() {
    var box = $('message-box');
    box.addEventListener('input', function () { state.suggestionIndex = 0; updateSuggestions(); });
    box.addEventListener('keydown', function (event) {
      var list = $('suggestions');
      var matches = list.hidden ? [] : commandsMatching(box.value);
      if (matches.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
        event.preventDefault();
        var step = event.key === 'ArrowDown' ? 1 : matches.length - 1;
        state.suggestionIndex = (state.suggestionIndex + step) % matches.length;
        updateSuggestions();
        return;
      }
      if (matches.length > 0 && (event.key === 'Tab' || (event.key === 'Enter' && !exactCommand(box.value)))) {
        event.preventDefault();
        complete(matches[state.suggestionIndex] || matches[0]);
        return;
      }
      if (event.key === 'Escape') { list.hidden = true; return; }
      if (event.key === 'ArrowUp' && box.value === '' && state.history.length > 0) {
        event.preventDefault();
        state.historyIndex = state.historyIndex < 0 ? state.history.length - 1 : Math.max(0, state.historyIndex - 1);
        box.value = state.history[state.historyIndex];
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        send();
      }
    });
    $('composer').addEventListener('submit', function (event) {
      event.preventDefault();
      send();
    });
    document.addEventListener('click', function (event) {
      document.querySelectorAll('.overflow-menu').forEach(function (menu) {
        if (!menu.parentNode.contains(event.target)) menu.hidden = true;
      });
    });
  }

  // ---- events from the fake Slack -------------------------------------------------------------------

  function onHello(hello) {
    state.hello = hello;
    state.users = hello.users || {};
    document.title = '#' + hello.channel.name + ' · ' + hello.team.name + ' · playground';
    $('workspace-name').textContent = hello.team.name;
    $('sidebar-channel').textContent = '# ' + hello.channel.name;
    $('channel-title').textContent = '# ' + hello.channel.name;
    $('me-name').textContent = hello.user.name;
    $('command-list').textContent = commandNames();
    $('message-box').placeholder = 'Enviar um comando para #' + hello.channel.name + ' (digite /)';
    $('messages').querySelectorAll('article').forEach(function (a) { if (a.dataset.channel !== 'local') a.remove(); });
    state.messages.clear();
    hello.messages.forEach(upsertMessage);
    renderShortcutsMenu();
    if (state.tab === 'home') showTab('home');
  }

  function onView(event) {
    var view = event.view;
    if (event.via === 'views.open') state.modals = [view];
    else if (event.via === 'views.push') state.modals.push(view);
    else if (event.via === 'views.update') {
      var found = false;
      state.modals = state.modals.map(function (v) {
        if (v.id !== view.id) return v;
        found = true;
        return view;
      });
      if (!found) return;
    }
    renderModals();
  }

  function connect() {
    var status = $('connection');
    var source = new EventSource('/playground/events?client=' + CLIENT_ID);
    source.addEventListener('open', function () {
      status.textContent = 'conectado';
      status.classList.remove('offline');
    });
    source.addEventListener('error', function () {
      status.textContent = 'sem conexão com o playground — tentando de novo…';
      status.classList.add('offline');
    });
    source.addEventListener('hello', function (e) { onHello(JSON.parse(e.data)); });
    source.addEventListener('message', function (e) { upsertMessage(JSON.parse(e.data)); });
    source.addEventListener('view', function (e) { onView(JSON.parse(e.data)); });
    source.addEventListener('home', function (e) { onHome(JSON.parse(e.data)); });
  }

`;
