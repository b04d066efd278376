import "./style.css";
import { App } from "./app";

const app = new App();
(window as unknown as { softbody: App["probe"] }).softbody = app.probe;
app.start().catch((e: Error) => {
  const element = document.getElementById("error");
  if (element) {
    element.hidden = false;
    element.textContent = `The client could not start: ${e.message}`;
  }
  console.error(e);
});
