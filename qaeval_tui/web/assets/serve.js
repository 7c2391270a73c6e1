// Point textual-serve's client at this server's websocket (ws: or wss:, as the page was served),
// and let it measure the terminal only once the font it draws with (served from here) is loaded:
// measured with a fallback font, the grid would overflow the window.
(() => {
  const connect = window.onload;
  window.onload = (event) => {
    const terminal = document.getElementById("terminal");
    if (terminal) {
      const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
      terminal.dataset.sessionWebsocketUrl = scheme + "//" + window.location.host + "/ws";
    }
    const size = (terminal && terminal.dataset.fontSize) || "16";
    document.fonts.load(size + 'px "Roboto Mono"').finally(() => connect && connect.call(window, event));
  };
})();
