/** Modal inputs, modals, confirm dialogs and view submissions. Part of the playground script (see script.ts). */
export const SCRIPT_MODALS = String.raw`
  // ---- modal inputs ---------------------------------------------------------------------------------

  function renderInput(block) {
    var element = block.element || {};
    var wrap = el('div', 'block input-block');
    wrap.dataset.blockId = block.block_id;
    var id = 'in-' + block.block_id + '-' + element.action_id;
    var labelText = plainText(block.label);
    var optional = block.optional ? el('span', 'optional', ' (opcional)') : null;
    var control;
    if (element.type === 'checkboxes' || element.type === 'radio_buttons') {
      var fs = el('fieldset');
      var legend = el('legend', null, labelText);
      if (optional) legend.appendChild(optional);
      fs.appendChild(legend);
      var initial = (element.initial_options || []).map(function (o) { return o.value; });
      if (element.initial_option) initial.push(element.initial_option.value);
      allOptions(element).forEach(function (option, i) {
        var lab = el('label', 'option');
        var box = el('input');
        box.type = element.type === 'checkboxes' ? 'checkbox' : 'radio';
        box.name = id;
        box.id = id + '-' + i;
        box.value = option.value;
        box.checked = initial.indexOf(option.value) >= 0;
        box.dataset.actionId = element.action_id;
        lab.appendChild(box);
        lab.appendChild(textObject(option.text));
        fs.appendChild(lab);
      });
      wrap.appendChild(fs);
    } else {
      var label = el('label', null, labelText);
      label.htmlFor = id;
      if (optional) label.appendChild(optional);
      wrap.appendChild(label);
      if (element.type === 'static_select') {
        control = selectControl(element, true);
      } else if (element.type === 'conversations_select' || element.type === 'channels_select') {
        control = conversationSelect(element);
      } else if (element.type === 'plain_text_input' && element.multiline) {
        control = el('textarea');
        control.rows = 4;
      } else {
        control = el('input');
        control.type = 'text';
        if (element.type === 'number_input') control.inputMode = element.is_decimal_allowed ? 'decimal' : 'numeric';
        if (element.type === 'email_text_input') control.type = 'email';
        if (element.type === 'url_text_input') control.type = 'url';
      }
      control.id = id;
      control.dataset.actionId = element.action_id;
      if (element.initial_value !== undefined && control.tagName !== 'SELECT') control.value = element.initial_value;
      if (element.placeholder && control.tagName !== 'SELECT') control.placeholder = plainText(element.placeholder);
      if (element.max_length && control.tagName !== 'SELECT') control.maxLength = element.max_length;
      wrap.appendChild(control);
    }
    if (block.hint) wrap.appendChild(el('div', 'input-hint', plainText(block.hint)));
    var error = el('div', 'field-error');
    error.setAttribute('role', 'alert');
    error.hidden = true;
    wrap.appendChild(error);
    return wrap;
  }

  /** block_id -> action_id -> typed text or chosen option values, as the playground routes take them. */
  function collectInputs(form) {
    var inputs = {};
    if (!form) return inputs;
    form.querySelectorAll('.input-block').forEach(function (wrap) {
      var blockId = wrap.dataset.blockId;
      var values = {};
      wrap.querySelectorAll('[data-action-id]').forEach(function (c) {
        var actionId = c.dataset.actionId;
        if (c.type === 'checkbox' || c.type === 'radio') {
          if (!values[actionId]) values[actionId] = [];
          if (c.checked) values[actionId].push(c.value);
        } else if (c.tagName === 'INPUT' || c.tagName === 'TEXTAREA' || c.tagName === 'SELECT') {
          values[actionId] = c.value;
        }
      });
      inputs[blockId] = values;
    });
    return inputs;
  }

  // ---- modals and dialogs ---------------------------------------------------------------------------

  function renderModals() {
    var root = $('modal-root');
    root.textContent = '';
    var view = state.modals[state.modals.length - 1];
    if (!view) return;
    var backdrop = el('div', 'backdrop');
    var form = el('form', 'modal');
    form.setAttribute('role', 'dialog');
    form.setAttribute('aria-modal', 'true');
    form.setAttribute('aria-labelledby', 'modal-title');
    form.dataset.viewId = view.id;
    form.noValidate = true;
    var header = el('header');
    var h2 = el('h2', null, plainText(view.title));
    h2.id = 'modal-title';
    var x = el('button', 'icon-close', '\u00D7');
    x.type = 'button';
    x.setAttribute('aria-label', 'Fechar');
    x.addEventListener('click', function () { state.modals = []; renderModals(); });
    header.appendChild(h2);
    header.appendChild(x);
    form.appendChild(header);
    var body = el('div', 'modal-body');
    renderBlocks(view.blocks, { viewId: view.id, form: form }, body);
    form.appendChild(body);
    var formError = el('div', 'modal-error');
    formError.setAttribute('role', 'alert');
    formError.hidden = true;
    form.appendChild(formError);
    var footer = el('footer');
    var cancel = el('button', 'btn', plainText(view.close) || 'Cancelar');
    cancel.type = 'button';
    cancel.addEventListener('click', function () { state.modals.pop(); renderModals(); });
    footer.appendChild(cancel);
    if (view.submit) {
      var submit = el('button', 'btn primary', plainText(view.submit));
      submit.type = 'submit';
      footer.appendChild(submit);
    }
    form.appendChild(footer);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      submitView(view, form);
    });
    backdrop.appendChild(form);
    root.appendChild(backdrop);
    var first = form.querySelector('input, textarea, select');
    if (first) first.focus();
  }

  function showErrors(form, errors) {
    form.querySelectorAll('.input-block').forEach(function (wrap) {
      var message = errors && errors[wrap.dataset.blockId];
      var slot = wrap.querySelector('.field-error');
      wrap.classList.toggle('invalid', Boolean(message));
      slot.hidden = !message;
      slot.textContent = message ? withEmoji(String(message)) : '';
    });
  }

  function submitView(view, form) {
    var submit = form.querySelector('button[type=submit]');
    if (submit) submit.disabled = true;
    var formError = form.querySelector('.modal-error');
    formError.hidden = true;
    post('/playground/submit', { viewId: view.id, inputs: collectInputs(form) }).then(function (answer) {
      if (submit) submit.disabled = false;
      if (!answer.ok) {
        formError.hidden = false;
        formError.textContent = 'Não foi possível enviar o formulário ao app (' + answer.error + ').';
        return;
      }
      if (answer.action === 'errors') { showErrors(form, answer.errors); return; }
      if (answer.action === 'clear') state.modals = [];
      else if (answer.action === 'update') state.modals[state.modals.length - 1] = answer.view;
      else if (answer.action === 'push') state.modals.push(answer.view);
      else state.modals = state.modals.filter(function (v) { return v.id !== view.id; });
      renderModals();
    });
  }

  function confirmDialog(confirm, onConfirm) {
    var backdrop = el('div', 'backdrop');
    var box = el('div', 'modal dialog');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-labelledby', 'confirm-title');
    var header = el('header');
    var h2 = el('h2', null, plainText(confirm.title) || 'Tem certeza?');
    h2.id = 'confirm-title';
    header.appendChild(h2);
    box.appendChild(header);
    var body = el('div', 'modal-body');
    body.appendChild(textObject(confirm.text));
    box.appendChild(body);
    var footer = el('footer');
    var close = function () { backdrop.remove(); };
    var deny = el('button', 'btn', plainText(confirm.deny) || 'Cancelar');
    deny.type = 'button';
    deny.addEventListener('click', close);
    var ok = el('button', 'btn ' + (confirm.style === 'danger' ? 'danger' : 'primary'), plainText(confirm.confirm) || 'Confirmar');
    ok.type = 'button';
    ok.addEventListener('click', function () { close(); onConfirm(); });
    footer.appendChild(deny);
    footer.appendChild(ok);
    box.appendChild(footer);
    backdrop.appendChild(box);
    document.body.appendChild(backdrop);
    ok.focus();
  }

`;
