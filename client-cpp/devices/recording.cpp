#include "client-cpp/devices/recording.h"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace softbody::client {

namespace {

const char* const kHeader = "t,x,y,z,qw,qx,qy,qz,vx,vy,vz,buttons,fx,fy,fz";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
    out.push_back(cell);
  }
  return out;
}

}  // namespace

std::vector<RecordedSample> load_recording(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be opened");
  std::string line;
  int line_number = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(path + ":" + std::to_string(line_number) + ": " + why);
  };
  std::map<std::string, size_t> column;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const auto names = split(line);
    for (size_t i = 0; i < names.size(); ++i) column[names[i]] = i;
    break;
  }
  for (const char* required : {"t", "x", "y", "z"})
    if (!column.count(required))
      fail(std::string("header lacks column '") + required + "' (expected " + kHeader + ")");
  auto index = [&](const char* name) { return column.count(name) ? column[name] : SIZE_MAX; };
  const size_t t_col = index("t"), pos[3] = {index("x"), index("y"), index("z")},
               quat[4] = {index("qw"), index("qx"), index("qy"), index("qz")},
               vel[3] = {index("vx"), index("vy"), index("vz")},
               frc[3] = {index("fx"), index("fy"), index("fz")}, buttons = index("buttons");

  std::vector<RecordedSample> samples;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const auto cells = split(line);
    auto number = [&](size_t col, const char* what) {
      if (col >= cells.size()) fail(std::string("missing value for ") + what);
      double v = 0;
      const std::string& c = cells[col];
      const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), v);
      if (ec != std::errc() || end != c.data() + c.size() || !std::isfinite(v))
        fail(std::string(what) + ": '" + c + "' is not a finite number");
      return v;
    };
    RecordedSample s;
    s.t = number(t_col, "t");
    if (!samples.empty() && s.t <= samples.back().t) fail("t must increase");
    const char* pos_names[3] = {"x", "y", "z"};
    for (size_t k = 0; k < 3; ++k) {
      s.state.position[k] = number(pos[k], pos_names[k]);
      if (vel[k] != SIZE_MAX) s.state.velocity[k] = number(vel[k], "velocity");
      if (frc[k] != SIZE_MAX) s.force[k] = number(frc[k], "force");
    }
    if (quat[0] != SIZE_MAX)
      for (size_t k = 0; k < 4; ++k) s.state.orientation[k] = number(quat[k], "orientation");
    if (buttons != SIZE_MAX)
      s.state.buttons = static_cast<std::uint32_t>(number(buttons, "buttons"));
    samples.push_back(s);
  }
  if (samples.empty()) fail("no samples");
  return samples;
}

RecordingDevice::RecordingDevice(std::unique_ptr<HapticDevice> inner, const std::string& path)
    : inner_(std::move(inner)), out_(path) {
  if (!out_) throw std::runtime_error(path + ": cannot be created");
  out_ << kHeader << '\n';
  out_.precision(9);
  queue_.reserve(1024);
  thread_ = std::thread([this] { writer(); });
}

RecordingDevice::~RecordingDevice() {
  close();
}

DeviceState RecordingDevice::read(double time_s) {
  current_.t = time_s;
  current_.state = inner_->read(time_s);
  have_current_ = true;
  return current_.state;
}

void RecordingDevice::write_force(const Vec3& force, double time_s) {
  inner_->write_force(force, time_s);
  if (!have_current_) return;
  current_.force = force;
  have_current_ = false;
  ++rows_;
  std::lock_guard lock(mutex_);
  queue_.push_back(current_);
}

void RecordingDevice::writer() {
  std::vector<RecordedSample> batch;
  for (;;) {
    bool last;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return closing_; });
      batch.swap(queue_);
      last = closing_;
    }
    for (const RecordedSample& s : batch) {
      const auto& st = s.state;
      out_ << s.t << ',' << st.position[0] << ',' << st.position[1] << ',' << st.position[2] << ','
           << st.orientation[0] << ',' << st.orientation[1] << ',' << st.orientation[2] << ','
           << st.orientation[3] << ',' << st.velocity[0] << ',' << st.velocity[1] << ','
           << st.velocity[2] << ',' << st.buttons << ',' << s.force[0] << ',' << s.force[1] << ','
           << s.force[2] << '\n';
    }
    batch.clear();
    if (last) break;
  }
  out_.flush();
}

void RecordingDevice::close() {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    closing_ = true;
  }
  wake_.notify_all();
  thread_.join();
  out_.close();
}

}  // namespace softbody::client
