export { refusedPort, refusedUrl } from "./refused-port.js";
