import { render } from 'preact';
import { App } from './app.js';
import { Session } from './session.js';

render(<App session={new Session()} />, document.getElementById('app')!);
