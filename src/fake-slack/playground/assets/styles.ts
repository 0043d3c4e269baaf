/** Styles of the playground page: close enough to Slack's look to read Block Kit as a person would. */
export const PLAYGROUND_CSS = `
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 15px/1.46 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d1c1d; background: #fff; }
button, input, select, textarea { font: inherit; }
code { font-family: Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; color: #c01343; background: #f6f6f6; border: 1px solid #e2e2e2; border-radius: 3px; padding: 0 3px; }
pre { font-family: Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; background: #f8f8f8; border: 1px solid #e2e2e2; border-radius: 4px; padding: 8px; margin: 4px 0; white-space: pre-wrap; }
a { color: #1264a3; text-decoration: none; }
a:hover { text-decoration: underline; }

.app { display: grid; grid-template-columns: 240px 1fr; height: 100vh; }
.sidebar { background: #3f0e40; color: #cfc3cf; padding: 12px 0; overflow-y: auto; }
.workspace { color: #fff; font-weight: 900; font-size: 18px; padding: 0 16px 12px; border-bottom: 1px solid #5d2c5d; }
.sidebar-section { padding: 16px 16px 4px; font-size: 13px; }
.sidebar-channel { padding: 4px 16px; }
.sidebar-channel.active { background: #1164a3; color: #fff; }
.sidebar-note { padding: 0 16px; font-size: 12px; margin-top: 16px; }
.sidebar-note strong { color: #fff; }

.channel { display: flex; flex-direction: column; min-width: 0; height: 100vh; }
.channel-header { display: flex; align-items: center; justify-content: space-between; padding: 10px 20px; border-bottom: 1px solid #ddd; }
.channel-header h1 { font-size: 18px; margin: 0; font-weight: 900; }
.connection { font-size: 12px; color: #616061; }
.connection.offline { color: #e01e5a; }
.messages { flex: 1; overflow-y: auto; padding: 8px 0 16px; }
.empty { color: #616061; padding: 0 20px; }

.message { display: flex; gap: 8px; padding: 8px 20px; }
.message:hover { background: #f8f8f8; }
.message.ephemeral { background: #f4f8fb; border-left: 3px solid #1264a3; }
.message.dm { background: #fbf7ee; border-left: 3px solid #ecb22e; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 4px; background: #1d4f91; color: #fff; display: grid; place-items: center; font-size: 18px; }
.avatar.slackbot { background: #2eb67d; }
.message-body { flex: 1; min-width: 0; }
.meta { display: flex; gap: 6px; align-items: baseline; }
.author { font-weight: 900; }
.app-badge { font-size: 10px; font-weight: 700; color: #616061; background: #e8e8e8; border-radius: 2px; padding: 0 3px; }
.meta time { font-size: 12px; color: #616061; }
.only-you { font-size: 12px; color: #616061; margin: 2px 0 4px; }
.dm-note { font-size: 12px; color: #8d6708; margin: 2px 0 4px; }
.fallback-text, .mrkdwn, .plain { white-space: pre-wrap; overflow-wrap: anywhere; }

.block { margin: 4px 0; }
.block-header { font-size: 18px; font-weight: 900; margin: 8px 0 4px; }
.block-section { display: flex; gap: 12px; align-items: flex-start; }
.section-main { flex: 1; min-width: 0; }
.section-fields { display: grid; grid-template-columns: 1fr 1fr; gap: 6px 16px; margin-top: 6px; }
.section-accessory { flex: 0 0 auto; }
.block-context { display: flex; flex-wrap: wrap; gap: 8px; font-size: 12px; color: #616061; align-items: center; }
.block-context img { width: 16px; height: 16px; }
.block-divider { border: 0; border-top: 1px solid #ddd; margin: 10px 0; }
.block-actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.block-image img { max-width: 360px; max-height: 240px; border-radius: 4px; }
.block-unknown { font-size: 12px; color: #a0a0a0; font-style: italic; }

.btn { border: 1px solid #c8c8c8; background: #fff; color: #1d1c1d; border-radius: 4px; padding: 3px 12px; font-weight: 700; font-size: 14px; cursor: pointer; min-height: 32px; }
.btn:hover { background: #f6f6f6; }
.btn.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.btn.primary:hover { background: #148567; }
.btn.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
.btn.danger:hover { background: #e43a6f; }
.btn[disabled] { opacity: .6; cursor: progress; }
.overflow { position: relative; display: inline-block; }
.overflow-menu { position: absolute; right: 0; top: 100%; z-index: 5; background: #fff; border: 1px solid #ddd; border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,.15); padding: 4px 0; margin: 2px 0 0; list-style: none; min-width: 180px; }
.overflow-menu button { display: block; width: 100%; text-align: left; border: 0; background: none; padding: 6px 16px; cursor: pointer; }
.overflow-menu button:hover { background: #1264a3; color: #fff; }
select.select { border: 1px solid #c8c8c8; border-radius: 4px; padding: 4px 8px; min-height: 32px; background: #fff; }

.composer { position: relative; padding: 0 20px 20px; }
.composer-row { display: flex; border: 1px solid #8d8d8d; border-radius: 8px; }
.composer textarea { flex: 1; border: 0; resize: none; padding: 10px 12px; outline: none; min-height: 42px; }
.send-button { border: 0; background: #007a5a; color: #fff; padding: 0 16px; font-weight: 700; cursor: pointer; border-radius: 0 7px 7px 0; }
.suggestions { position: absolute; left: 20px; right: 20px; bottom: 100%; margin: 0; padding: 4px 0; list-style: none; background: #fff; border: 1px solid #ddd; border-radius: 8px; box-shadow: 0 -4px 12px rgba(0,0,0,.1); }
.suggestions li { padding: 6px 12px; cursor: pointer; }
.suggestions li[aria-selected="true"] { background: #1264a3; color: #fff; }
.suggestions .cmd { font-weight: 700; }
.suggestions .usage { margin-left: 6px; opacity: .8; font-family: Menlo, Consolas, monospace; font-size: 12px; }
.suggestions .desc { display: block; font-size: 12px; opacity: .8; }
.usage-hint { font-size: 12px; color: #616061; padding: 2px 4px 6px; font-family: Menlo, Consolas, monospace; }

.backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.45); display: grid; place-items: center; z-index: 10; }
.modal { background: #fff; border-radius: 8px; width: min(520px, 94vw); max-height: 90vh; display: flex; flex-direction: column; box-shadow: 0 18px 48px rgba(0,0,0,.35); }
.modal header { display: flex; justify-content: space-between; align-items: center; padding: 16px 24px; border-bottom: 1px solid #eee; }
.modal h2 { margin: 0; font-size: 20px; font-weight: 900; }
.modal .icon-close { border: 0; background: none; font-size: 22px; cursor: pointer; color: #616061; }
.modal-body { padding: 16px 24px; overflow-y: auto; }
.modal footer { display: flex; justify-content: flex-end; gap: 8px; padding: 16px 24px; border-top: 1px solid #eee; }
.modal-error { color: #e01e5a; font-size: 13px; padding: 0 24px 8px; }
.input-block { margin: 12px 0; }
.input-block > label, .input-block > fieldset > legend { display: block; font-weight: 700; margin-bottom: 6px; }
.input-block .optional { font-weight: 400; color: #616061; }
.input-block input[type=text], .input-block textarea, .input-block select { width: 100%; border: 1px solid #8d8d8d; border-radius: 4px; padding: 8px 10px; }
.input-block fieldset { border: 0; padding: 0; margin: 0; }
.input-block .option { display: flex; gap: 8px; align-items: center; font-weight: 400; }
.input-hint { font-size: 12px; color: #616061; margin-top: 4px; }
.field-error { font-size: 13px; color: #e01e5a; margin-top: 4px; }
.input-block.invalid input, .input-block.invalid textarea { border-color: #e01e5a; }
.dialog { width: min(440px, 94vw); }
.sidebar-channel[role=button] { cursor: pointer; }
.home { flex: 1; overflow-y: auto; padding: 8px 20px 16px; }
.home-blocks .block-section { padding: 2px 0; }
.message { position: relative; }
.message-menu { position: absolute; right: 16px; top: 6px; }
.message-menu-button { border: 1px solid #ddd; background: #fff; border-radius: 4px; cursor: pointer; font-size: 16px; line-height: 1; padding: 2px 8px; visibility: hidden; }
.message-menu-button::before { content: '\\22EF'; }
.message:hover .message-menu-button, .message-menu-button:focus { visibility: visible; }
.shortcuts { display: flex; }
.shortcuts-button { border: 0; border-right: 1px solid #ddd; background: #f8f8f8; padding: 0 12px; cursor: pointer; font-size: 16px; border-radius: 7px 0 0 7px; }
.shortcuts-menu { left: 0; right: auto; top: auto; bottom: 100%; }
.external-select { position: relative; min-width: 260px; }
.external-select input { width: 100%; border: 1px solid #8d8d8d; border-radius: 4px; padding: 6px 10px; }
.external-options { position: absolute; left: 0; right: 0; top: 100%; z-index: 6; margin: 2px 0 0; padding: 4px 0; list-style: none; background: #fff; border: 1px solid #ddd; border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,.15); max-height: 240px; overflow-y: auto; }
.external-option { padding: 6px 12px; cursor: pointer; }
.external-option:hover { background: #1264a3; color: #fff; }
.external-empty { padding: 6px 12px; color: #616061; }
`;
