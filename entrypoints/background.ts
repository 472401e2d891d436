import { startService } from '../lib/service/index';

export default defineBackground(() => {
  startService();
});
