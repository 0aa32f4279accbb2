import { useEffect } from 'react';
import { bridge } from './bridge';
import { Shell } from './components/Shell';
import { ConsumptionScreen } from './features/consumption/ConsumptionScreen';
import { OrganizationsScreen } from './features/organizations/OrganizationsScreen';
import { ProfilesScreen } from './features/profiles/ProfilesScreen';
import { ReportsScreen } from './features/reports/ReportsScreen';
import { useAppStore } from './stores/app-store';

export function App(): React.JSX.Element {
  const screen = useAppStore((state) => state.screen);
  const load = useAppStore((state) => state.load);
  const setConnection = useAppStore((state) => state.setConnection);

  useEffect(() => {
    void load();
    return bridge.on('connection:state', setConnection);
  }, [load, setConnection]);

  return (
    <Shell>
      {screen === 'reports' ? <ReportsScreen /> : null}
      {screen === 'consumption' ? <ConsumptionScreen /> : null}
      {screen === 'organizations' ? <OrganizationsScreen /> : null}
      {screen === 'profiles' ? <ProfilesScreen /> : null}
    </Shell>
  );
}
