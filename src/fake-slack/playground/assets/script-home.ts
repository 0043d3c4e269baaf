/**
 * The App Home tab, the shortcuts button, a message's "…" menu and the external_select. Part of the playground
 * script (see script.ts).
 */
export const SCRIPT_HOME = String.raw`
  // ---- App Home tab ---------------------------------------------------------------------------------

  function showTab(tab) {
    state.tab = tab;
    var home = tab === 'home';
    $('home').hidden = !home;
    $('messages').hidden = home;
    $('composer').hidden = home;
    $('sidebar-home').classList.toggle('active', home);
    $('sidebar-channel').classList.toggle('active', !home);
    $('channel-title').textContent = home ? (state.hello ? state.hello.bot.name : 'estoque-bot') + ' · Início'
      : '# ' + (state.hello ? state.hello.channel.name : 'canal');
    if (home) {
      post('/playground/home', {}).then(function (answer) {
        if (!answer.ok) homeNote('O app não respondeu à abertura da aba Início (' + answer.error + ').');
      });
    }
  }

  function homeNote(text) {
    var box = $('home');
    box.textContent = '';
    box.appendChild(el('p', 'empty', text));
  }

  function onHome(view) {
    state.home = view;
    var box = $('home');
    box.textContent = '';
    var content = el('div', 'blocks home-blocks');
    renderBlocks(view.blocks, { viewId: view.id, form: null }, content);
    box.appendChild(content);
  }

  // ---- shortcuts --------------------------------------------------------------------------------------

  function shortcutsOf(type) {
    return (state.hello && state.hello.shortcuts ? state.hello.shortcuts : []).filter(function (s) { return s.type === type; });
  }

  function runShortcut(path, body, name) {
    post(path, body).then(function (answer) {
      if (!answer.ok) notice('O atalho ' + name + ' falhou (' + answer.error + ').');
    });
  }

  function menu(items, className) {
    var list = el('ul', 'overflow-menu ' + (className || ''));
    list.hidden = true;
    items.forEach(function (item) {
      var li = el('li');
      var b = el('button', null, item.label);
      b.type = 'button';
      b.addEventListener('click', function () { list.hidden = true; item.run(); });
      li.appendChild(b);
      list.appendChild(li);
    });
    return list;
  }

  /** Once: the sidebar's Home and channel entries. */
  function setUpShortcuts() {
    var open = function (tab) {
      return function (event) {
        if (event.type === 'keydown' && event.key !== 'Enter' && event.key !== ' ') return;
        showTab(tab);
      };
    };
    ['click', 'keydown'].forEach(function (type) {
      $('sidebar-home').addEventListener(type, open('home'));
      $('sidebar-channel').addEventListener(type, open('channel'));
    });
    renderShortcutsMenu();
  }

  /** The shortcuts button by the composer, with the app's global shortcuts (from hello). */
  function renderShortcutsMenu() {
    var wrap = $('shortcuts');
    wrap.textContent = '';
    var toggle = el('button', 'shortcuts-button', '\u26A1');
    toggle.type = 'button';
    toggle.title = 'Atalhos';
    toggle.setAttribute('aria-label', 'Atalhos');
    var list = menu(shortcutsOf('global').map(function (s) {
      return { label: s.name, run: function () { runShortcut('/playground/shortcut', { callbackId: s.callbackId }, s.name); } };
    }), 'shortcuts-menu');
    toggle.addEventListener('click', function () { list.hidden = !list.hidden; });
    wrap.appendChild(toggle);
    wrap.appendChild(list);
  }

  /** A message's "…" menu with the message shortcuts (Slack offers none on ephemeral messages). */
  function addMessageMenu(article, m) {
    var items = shortcutsOf('message');
    if (m.local || m.ephemeral || items.length === 0) return;
    var wrap = el('div', 'overflow message-menu');
    // The glyph comes from CSS: the menu adds no text to the message a person reads.
    var toggle = el('button', 'message-menu-button');
    toggle.type = 'button';
    toggle.title = 'Mais ações';
    toggle.setAttribute('aria-label', 'Mais ações');
    var list = menu(items.map(function (s) {
      return { label: s.name, run: function () {
        runShortcut('/playground/message-shortcut', { callbackId: s.callbackId, channel: m.channel, ts: m.ts }, s.name);
      } };
    }));
    toggle.addEventListener('click', function () { list.hidden = !list.hidden; });
    wrap.appendChild(toggle);
    wrap.appendChild(list);
    article.appendChild(wrap);
  }

  // ---- external_select --------------------------------------------------------------------------------

  /** A type-ahead whose options the app gives (block_suggestion), from min_query_length typed characters. */
  function externalSelect(element, surface, blockId) {
    var wrap = el('div', 'external-select');
    var input = el('input');
    input.type = 'search';
    input.placeholder = plainText(element.placeholder) || 'Digite para buscar';
    input.setAttribute('aria-label', input.placeholder);
    if (isObj(element.initial_option)) input.value = plainText(element.initial_option.text);
    var list = el('ul', 'external-options');
    list.setAttribute('role', 'listbox');
    list.hidden = true;
    var min = typeof element.min_query_length === 'number' ? element.min_query_length : 3;
    var seq = 0;
    var timer = null;
    var ask = function () {
      var typed = input.value;
      seq += 1;
      var mine = seq;
      if (typed.length < min) { list.hidden = true; return; }
      post('/playground/suggest', { viewId: surface.viewId, actionId: element.action_id, blockId: blockId, value: typed })
        .then(function (answer) {
          if (mine !== seq) return;
          list.textContent = '';
          var options = answer.ok && Array.isArray(answer.options) ? answer.options : [];
          if (options.length === 0) list.appendChild(el('li', 'external-empty', 'Nenhum resultado'));
          options.forEach(function (option) {
            var li = el('li', 'external-option', plainText(option.text));
            li.setAttribute('role', 'option');
            li.addEventListener('mousedown', function (event) {
              event.preventDefault();
              input.value = plainText(option.text);
              list.hidden = true;
              act(surface, element, blockId, option.value, input, { selectedText: plainText(option.text) });
            });
            list.appendChild(li);
          });
          list.hidden = false;
        });
    };
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 200);
    });
    input.addEventListener('blur', function () { setTimeout(function () { list.hidden = true; }, 150); });
    wrap.appendChild(input);
    wrap.appendChild(list);
    return wrap;
  }

  /** A conversations_select in a modal: the channels the person sees, the page's channel first. */
  function conversationSelect(element) {
    var select = el('select', 'select');
    var channel = state.hello ? state.hello.channel : null;
    var none = el('option', null, 'Nenhum canal');
    none.value = '';
    select.appendChild(none);
    if (channel) {
      var option = el('option', null, '# ' + channel.name);
      option.value = channel.id;
      select.appendChild(option);
      if (element.default_to_current_conversation) select.value = channel.id;
    }
    return select;
  }

`;
