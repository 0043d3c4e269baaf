/** The playground page: a Slack-like channel view. Styles and script are separate files (the CSP allows no inline code). */
export const PLAYGROUND_HTML = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>estoque-bot · playground local</title>
<link rel="stylesheet" href="/playground/app.css">
<script src="/playground/app.js" defer></script>
</head>
<body>
<div class="app">
  <aside class="sidebar" aria-label="Workspace">
    <div class="workspace" id="workspace-name">Workspace</div>
    <div class="sidebar-section">Canais</div>
    <div class="sidebar-channel active" id="sidebar-channel" role="button" tabindex="0"># canal</div>
    <div class="sidebar-section">Apps</div>
    <div class="sidebar-channel" id="sidebar-home" role="button" tabindex="0">estoque-bot · Início</div>
    <p class="sidebar-note">Playground local: esta página faz o papel do Slack.
      Você é <strong id="me-name">…</strong>, administrador do workspace.</p>
    <p class="sidebar-note">Comandos: <span id="command-list"></span></p>
  </aside>
  <main class="channel">
    <header class="channel-header">
      <h1 id="channel-title"># canal</h1>
      <span id="connection" class="connection" role="status">conectando…</span>
    </header>
    <section id="messages" class="messages" role="log" aria-label="Mensagens" aria-live="polite">
      <p class="empty" id="empty-note">Nenhuma mensagem ainda. Digite <code>/estoque ajuda</code> abaixo.</p>
    </section>
    <section id="home" class="home" aria-label="Início do app" hidden>
      <p class="empty">Abrindo a aba Início…</p>
    </section>
    <form id="composer" class="composer" autocomplete="off">
      <ul id="suggestions" class="suggestions" role="listbox" aria-label="Comandos" hidden></ul>
      <div id="usage-hint" class="usage-hint" hidden></div>
      <div class="composer-row">
        <div id="shortcuts" class="overflow shortcuts"></div>
        <textarea id="message-box" rows="1" aria-label="Mensagem para o canal" placeholder="Digite / para ver os comandos"></textarea>
        <button type="submit" class="send-button">Enviar</button>
      </div>
    </form>
  </main>
</div>
<div id="modal-root"></div>
</body>
</html>
`;
