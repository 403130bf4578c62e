// Loads an SDF file with the SDFormat library and prints what it parsed
// (models, sensors, lidar numbers). Exit 1 on any parser error.
// Built and run by scripts/check_sdf.sh (Debian libsdformat-dev, SDFormat 12).
#include <sdf/sdf.hh>
#include <iostream>
int main(int argc, char** argv) {
  sdf::Root root;
  sdf::ParserConfig cfg = sdf::ParserConfig::GlobalConfig();
  cfg.SetUnrecognizedElementsPolicy(sdf::EnforcementPolicy::WARN);
  sdf::Errors errs = root.Load(argv[1], cfg);
  for (auto &e : errs) std::cout << "ERROR: " << e << "\n";
  if (root.WorldCount() > 0) {
    const sdf::World* w = root.WorldByIndex(0);
    std::cout << "world " << w->Name() << " models " << w->ModelCount() << "\n";
    for (uint64_t i = 0; i < w->ModelCount(); ++i) {
      auto* m = w->ModelByIndex(i);
      std::cout << " model " << m->Name() << " links " << m->LinkCount() << " joints " << m->JointCount() << " static " << m->Static() << "\n";
      for (uint64_t l = 0; l < m->LinkCount(); ++l) {
        auto* link = m->LinkByIndex(l);
        for (uint64_t s = 0; s < link->SensorCount(); ++s) {
          auto* sn = link->SensorByIndex(s);
          std::cout << "  sensor " << sn->Name() << " type " << sn->TypeStr() << " topic " << sn->Topic() << " rate " << sn->UpdateRate() << "\n";
          if (sn->LidarSensor()) { auto* l2 = sn->LidarSensor(); std::cout << "   lidar samples " << l2->HorizontalScanSamples() << " min " << l2->HorizontalScanMinAngle().Radian() << " max " << l2->HorizontalScanMaxAngle().Radian() << " range " << l2->RangeMin() << ".." << l2->RangeMax() << " noise " << l2->LidarNoise().StdDev() << "\n"; }
        }
      }
    }
    if (w->SphericalCoordinates()) std::cout << " spherical lat " << w->SphericalCoordinates()->LatitudeReference().Degree() << "\n";
  }
  return errs.empty() ? 0 : 1;
}
