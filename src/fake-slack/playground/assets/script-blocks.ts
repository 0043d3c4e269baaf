/** Talking to the playground routes; interactive elements and Block Kit blocks. Part of the playground script (see script.ts). */
export const SCRIPT_BLOCKS = String.raw`
  // ---- talking to the playground routes -------------------------------------------------------------

  /**
   * This page as one Slack client, made up when it loads: its event stream and every request it posts name it, so a
   * modal its own click or command opens shows here and not in the person's other pages (modal-owners.ts).
   */
  var CLIENT_ID = (function () {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  })();

  function post(path, body) {
    return fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.assign({}, body, { client: CLIENT_ID }))
    }).then(function (r) {
      return r.json().catch(function () { return { ok: false, error: 'http_' + r.status }; });
    }, function () { return { ok: false, error: 'playground_unreachable' }; });
  }

  // ---- interactive elements -------------------------------------------------------------------------

  /** Sends a click or a selection as Slack would, after the element's confirm dialog when it has one. */
  function act(surface, element, blockId, value, control, extra) {
    var send = function () {
      var body = { actionId: element.action_id, blockId: blockId };
      if (value !== undefined && value !== null) body.value = value;
      if (extra && extra.selectedText) body.selectedText = extra.selectedText;
      if (surface.viewId) {
        body.viewId = surface.viewId;
        body.inputs = collectInputs(surface.form);
      } else {
        body.channel = surface.channel;
        body.ts = surface.ts;
      }
      if (control) control.disabled = true;
      return post('/playground/action', body).then(function (answer) {
        if (control) control.disabled = false;
        if (!answer.ok) notice('Não foi possível enviar a ação ao app (' + answer.error + ').');
      });
    };
    if (element.type === 'button' && element.url && safeUrl(element.url)) {
      window.open(element.url, '_blank', 'noopener,noreferrer');
    }
    if (isObj(element.confirm)) confirmDialog(element.confirm, send);
    else send();
  }

  function button(element, surface, blockId) {
    var b = el('button', 'btn' + (element.style === 'primary' ? ' primary' : element.style === 'danger' ? ' danger' : ''));
    b.type = 'button';
    b.textContent = plainText(element.text);
    b.dataset.actionId = element.action_id || '';
    b.addEventListener('click', function () { act(surface, element, blockId, element.value, b); });
    return b;
  }

  function optionLabel(option) { return plainText(option.text); }

  function allOptions(element) {
    var options = Array.isArray(element.options) ? element.options.slice() : [];
    (element.option_groups || []).forEach(function (g) { options = options.concat(g.options || []); });
    return options;
  }

  function overflow(element, surface, blockId) {
    var wrap = el('span', 'overflow');
    var toggle = el('button', 'btn', '\u22EF');
    toggle.type = 'button';
    toggle.setAttribute('aria-label', 'Mais opções');
    toggle.setAttribute('aria-haspopup', 'menu');
    var menu = el('ul', 'overflow-menu');
    menu.setAttribute('role', 'menu');
    menu.hidden = true;
    allOptions(element).forEach(function (option) {
      var li = el('li');
      var item = el('button', null, optionLabel(option));
      item.type = 'button';
      item.setAttribute('role', 'menuitem');
      item.addEventListener('click', function () {
        menu.hidden = true;
        act(surface, element, blockId, option.value, null);
      });
      li.appendChild(item);
      menu.appendChild(li);
    });
    toggle.addEventListener('click', function () { menu.hidden = !menu.hidden; });
    wrap.appendChild(toggle);
    wrap.appendChild(menu);
    return wrap;
  }

  function selectControl(element, withPlaceholder) {
    var select = el('select', 'select');
    if (withPlaceholder) {
      var ph = el('option', null, plainText(element.placeholder) || 'Selecione uma opção');
      ph.value = '';
      select.appendChild(ph);
    }
    var add = function (parent, option) {
      var o = el('option', null, optionLabel(option));
      o.value = option.value;
      parent.appendChild(o);
    };
    (element.options || []).forEach(function (option) { add(select, option); });
    (element.option_groups || []).forEach(function (group) {
      var og = el('optgroup');
      og.label = plainText(group.label);
      (group.options || []).forEach(function (option) { add(og, option); });
      select.appendChild(og);
    });
    var initial = element.initial_option && element.initial_option.value;
    select.value = initial || '';
    return select;
  }

  function staticSelect(element, surface, blockId) {
    var select = selectControl(element, true);
    if (element.placeholder) select.setAttribute('aria-label', plainText(element.placeholder));
    select.addEventListener('change', function () {
      if (select.value !== '') act(surface, element, blockId, select.value, select);
    });
    return select;
  }

  function interactive(element, surface, blockId) {
    if (!isObj(element)) return null;
    if (element.type === 'button') return button(element, surface, blockId);
    if (element.type === 'overflow') return overflow(element, surface, blockId);
    if (element.type === 'static_select') return staticSelect(element, surface, blockId);
    if (element.type === 'external_select' && surface.viewId) return externalSelect(element, surface, blockId);
    if (element.type === 'image') {
      var url = safeUrl(String(element.image_url || ''));
      if (!url) return el('span', 'block-unknown', element.alt_text || '');
      var img = el('img');
      img.src = url;
      img.alt = element.alt_text || '';
      return img;
    }
    return el('span', 'block-unknown', '[' + element.type + ' não suportado no playground]');
  }

  // ---- blocks ---------------------------------------------------------------------------------------

  function renderBlock(block, surface) {
    if (!isObj(block)) return null;
    var node;
    switch (block.type) {
      case 'header':
        node = el('div', 'block block-header');
        node.setAttribute('role', 'heading');
        node.setAttribute('aria-level', '3');
        node.textContent = plainText(block.text);
        return node;
      case 'section': {
        node = el('div', 'block block-section');
        var main = el('div', 'section-main');
        if (block.text) main.appendChild(textObject(block.text, 'section-text'));
        if (Array.isArray(block.fields) && block.fields.length > 0) {
          var fields = el('div', 'section-fields');
          block.fields.forEach(function (f) { fields.appendChild(textObject(f, 'field')); });
          main.appendChild(fields);
        }
        node.appendChild(main);
        if (block.accessory) {
          var acc = el('div', 'section-accessory');
          var control = interactive(block.accessory, surface, block.block_id);
          if (control) acc.appendChild(control);
          node.appendChild(acc);
        }
        return node;
      }
      case 'context':
        node = el('div', 'block block-context');
        (block.elements || []).forEach(function (e) {
          if (isObj(e) && e.type === 'image') node.appendChild(interactive(e, surface, block.block_id));
          else node.appendChild(textObject(e));
        });
        return node;
      case 'divider':
        return el('hr', 'block block-divider');
      case 'actions':
        node = el('div', 'block block-actions');
        (block.elements || []).forEach(function (e) {
          var c = interactive(e, surface, block.block_id);
          if (c) node.appendChild(c);
        });
        return node;
      case 'image': {
        node = el('div', 'block block-image');
        if (block.title) node.appendChild(el('div', null, plainText(block.title)));
        node.appendChild(interactive({ type: 'image', image_url: block.image_url, alt_text: block.alt_text }));
        return node;
      }
      case 'input':
        return renderInput(block);
      case 'rich_text':
        node = el('div', 'block plain');
        node.textContent = richText(block);
        return node;
      default:
        return el('div', 'block block-unknown', '[bloco ' + block.type + ' não suportado no playground]');
    }
  }

  function richText(node) {
    if (Array.isArray(node)) return node.map(richText).join('');
    if (!isObj(node)) return '';
    if (typeof node.text === 'string') return node.text;
    return richText(node.elements || []);
  }

  function renderBlocks(blocks, surface, parent) {
    (blocks || []).forEach(function (block) {
      var node = renderBlock(block, surface);
      if (node) parent.appendChild(node);
    });
  }

`;
