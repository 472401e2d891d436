import { render } from 'preact';
import { OptionsPage } from '../../lib/ui/options-page';
import '../../lib/ui/theme.css';

render(<OptionsPage />, document.getElementById('app')!);
