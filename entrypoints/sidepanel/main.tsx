import { render } from 'preact';
import { SidePanel } from '../../lib/ui/side-panel';
import '../../lib/ui/theme.css';

render(<SidePanel />, document.getElementById('app')!);
