/**
 * Theming: set these on the element (or any ancestor) in the host page's CSS; they cross the shadow boundary,
 * nothing else does.
 *
 *   --quarry-accent      links, focus ring, primary button (default #0b57d0 light, #8ab4f8 dark)
 *   --quarry-accent-fg   text on the accent colour (default #fff light, #0b1a33 dark)
 *   --quarry-bg          background (default #fff light, #16181d dark)
 *   --quarry-fg          text (default #1b1c1f light, #e8eaed dark)
 *   --quarry-muted       secondary text (default #52575e light, #aab0b8 dark)
 *   --quarry-border      borders and separators (default #c7cbd1 light, #3c4148 dark)
 *   --quarry-surface     panels, hovered options (default #f3f5f8 light, #22252b dark)
 *   --quarry-font        font family (default system-ui)
 *   --quarry-font-size   base size (default 15px)
 *   --quarry-radius      corner radius (default 8px)
 *   --quarry-z           z-index of the modal launcher's dialog (default 2147483000)
 *
 * Light or dark follows the visitor's prefers-color-scheme; the theme attribute (light|dark) forces one. For
 * other colours in dark mode, set the variables inside the page's own prefers-color-scheme media query.
 */
const DARK = '--_accent:#8ab4f8;--_accent-fg:#0b1a33;--_bg:#16181d;--_fg:#e8eaed;--_muted:#aab0b8;--_border:#3c4148;--_surface:#22252b;';

export const CSS = `
:host{all:initial;display:block;--_accent:#0b57d0;--_accent-fg:#fff;--_bg:#fff;--_fg:#1b1c1f;--_muted:#52575e;--_border:#c7cbd1;--_surface:#f3f5f8}
:host([hidden]){display:none}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){${DARK}}}
:host([theme=dark]){${DARK}}
.root{--a:var(--quarry-accent,var(--_accent));--af:var(--quarry-accent-fg,var(--_accent-fg));--bg:var(--quarry-bg,var(--_bg));--fg:var(--quarry-fg,var(--_fg));
--mu:var(--quarry-muted,var(--_muted));--bd:var(--quarry-border,var(--_border));--sf:var(--quarry-surface,var(--_surface));--r:var(--quarry-radius,8px);
all:initial;display:block;box-sizing:border-box;font-family:var(--quarry-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);font-size:var(--quarry-font-size,15px);
line-height:1.5;color:var(--fg);background:var(--bg);text-align:start;overflow-wrap:anywhere;position:relative}
/* Its own card: a dark widget on a light page (or the reverse) must not look like a block of text cut out of it. */
.root.inline{padding:1em;border-radius:var(--r)}
.root.modal{background:none}
*,*::before,*::after{box-sizing:inherit}
[hidden]{display:none!important}
a{color:var(--a);text-decoration:underline;text-underline-offset:2px}
button,input{font:inherit;color:inherit;margin:0}
button{cursor:pointer;background:var(--sf);border:1px solid var(--bd);border-radius:var(--r);padding:.45em .9em;min-height:2.5em}
button:hover{border-color:var(--a)}
button:disabled{opacity:.6;cursor:default}
.primary,.launcher:hover{background:var(--a);color:var(--af);border-color:var(--a)}
:focus-visible{outline:3px solid var(--a);outline-offset:2px}
input:focus-visible{outline-offset:0}
h2{font-size:.8em;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--mu);margin:.75em 0 .4em}
ol,ul{margin:0;padding:0;list-style:none}
p{margin:0 0 .5em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.box{position:relative}
.box input{width:100%;padding:.7em .9em;border:1px solid var(--bd);border-radius:var(--r);background:var(--bg);font-size:1.05em}
.box input::placeholder{color:var(--mu);opacity:1}
[role=listbox]{position:absolute;z-index:2;left:0;right:0;top:calc(100% + 4px);background:var(--bg);border:1px solid var(--bd);border-radius:var(--r);
box-shadow:0 6px 24px rgb(0 0 0/.18);padding:4px;max-height:18em;overflow:auto}
[role=option]{padding:.45em .7em;border-radius:calc(var(--r) - 2px);cursor:pointer}
[role=option]:hover,[role=option][aria-selected=true]{background:var(--sf)}
[role=option][aria-selected=true]{outline:2px solid var(--a);outline-offset:-2px}
.panel{margin-top:1em}
/* Results on their way: a moving bar over the last ones, which keep their full contrast meanwhile. */
.results{position:relative}
.results[aria-busy=true]::before{content:"";position:absolute;top:-.6em;left:0;width:30%;height:3px;border-radius:3px;background:var(--a);animation:busy 1s ease-in-out infinite alternate}
@keyframes busy{to{transform:translateX(233%)}}
.result{padding:.8em 0;border-bottom:1px solid var(--bd)}
.result:last-child{border-bottom:0}
.title{font-weight:600;font-size:1.05em}
.content{color:var(--fg);margin-top:.25em}
.result .content{display:-webkit-box;-webkit-line-clamp:4;-webkit-box-orient:vertical;overflow:hidden}
.content p:last-child{margin:0}
.line-break::before{content:"\\A";white-space:pre}
.instant{background:var(--sf);border:1px solid var(--bd);border-radius:var(--r);padding:.8em 1em;margin-bottom:.5em}
.instant .content{display:block}
.instant img{max-width:100%;height:auto}
.badge{display:inline-block;font-size:.75em;font-weight:600;color:var(--mu);text-transform:uppercase;letter-spacing:.04em}
.cta{display:inline-block;margin-top:.5em;background:var(--a);color:var(--af);border-radius:var(--r);padding:.4em .9em;text-decoration:none;font-weight:600}
.summary{background:var(--sf);border:1px solid var(--bd);border-radius:var(--r);padding:.8em 1em}
.answer-text{white-space:pre-line}
.cite{font-size:.75em;vertical-align:super;line-height:0;margin:0 .1em;text-decoration:none;border:1px solid currentColor;border-radius:4px;padding:0 .3em}
.refs{list-style:decimal;padding-left:1.6em;margin-top:.6em;font-size:.92em}
.refs li{margin:.2em 0}
.skeleton i{display:block;height:.8em;margin:.55em 0;border-radius:4px;background:var(--bd);animation:pulse 1.2s ease-in-out infinite}
.skeleton i:nth-child(3){width:85%}.skeleton i:nth-child(4){width:55%}
@keyframes pulse{50%{opacity:.45}}
@media (prefers-reduced-motion:reduce){.skeleton i{animation:none}.results[aria-busy=true]::before{animation:none;width:100%}}
.actions,.follow-ups{display:flex;flex-wrap:wrap;gap:.5em;align-items:center;margin-top:.7em}
.support{font-weight:600}
.problem{display:flex;flex-wrap:wrap;gap:.6em;align-items:center;margin-top:.8em;padding:.7em 1em;border:1px solid #b3261e;border-left-width:4px;border-radius:var(--r);background:var(--bg)}
.empty{margin-top:1em;color:var(--mu)}
.top ul{display:flex;flex-direction:column;gap:.35em}
.question-button{text-align:start;width:100%}
.to-chat{margin-top:.7em}
.back{margin-bottom:.6em}
.turn{margin-bottom:1em}
.question{font-weight:600;background:var(--sf);border-radius:var(--r);padding:.5em .8em;display:inline-block}
.ask{display:flex;gap:.5em;margin-top:.8em}
.ask input{flex:1;min-width:0;padding:.6em .8em;border:1px solid var(--bd);border-radius:var(--r);background:var(--bg)}
.launcher{display:inline-flex;gap:.8em;align-items:center;background:var(--bg)}
kbd{font:inherit;font-size:.8em;color:var(--mu);border:1px solid var(--bd);border-radius:4px;padding:0 .35em}
dialog{width:min(720px,calc(100vw - 32px));max-height:min(80vh,900px);margin:10vh auto auto;padding:1em;border:1px solid var(--bd);border-radius:var(--r);
background:var(--bg);color:var(--fg);z-index:var(--quarry-z,2147483000);overflow:auto;box-shadow:0 12px 48px rgb(0 0 0/.35)}
dialog::backdrop{background:rgb(0 0 0/.45)}
.dialog-head{display:flex;justify-content:flex-end;margin-bottom:.5em}
@media (max-width:600px){dialog{width:100vw;max-width:100vw;height:100dvh;max-height:100dvh;margin:0;border:0;border-radius:0}
.root{font-size:var(--quarry-font-size,16px)}}
`;
